// GraphQL surface of exports (master key only): start a WordPress or Shopify export job, and read
// an export job's per-item outcome as `Job.export` (null for other jobs). Secrets are input only.
import { builder } from '../../../graphql/builder.js';
import { authScopesOf, MASTER_KEY } from '../../access/index.js';
import { JobRef } from '../../jobs/jobs.schema.js';
import { EXPORT_ITEM_STATES, EXPORT_KINDS, SHOPIFY_EXPORT_KIND, type ShopifyJobInput, type WordPressJobInput } from './exports.service.js';

const ExportItemStateEnum = builder.enumType('ExportItemState', { values: EXPORT_ITEM_STATES });

const ExportItemRef = builder.prismaObject('ExportItem', {
  description: 'One media item of an export, in the order asked',
  fields: (t) => ({
    mediaId: t.exposeInt('mediaId'),
    status: t.field({ type: ExportItemStateEnum, resolve: (item) => item.status as (typeof EXPORT_ITEM_STATES)[number] }),
    remoteId: t.exposeString('remoteId', { nullable: true, description: 'WordPress media id, or Shopify file gid' }),
    remoteUrl: t.exposeString('remoteUrl', { nullable: true, description: "The file's URL at the destination" }),
    error: t.exposeString('error', { nullable: true, description: 'Why the item was not exported (or not attached)' }),
  }),
});

interface JobExport {
  destination: 'wordpress' | 'shopify';
  target: string;
  productId: string | null;
  items: Array<{ status: string }>;
}

const JobExportRef = builder.objectRef<JobExport>('JobExport').implement({
  description: 'Where an export job sends its items, and how each one went',
  fields: (t) => ({
    destination: t.exposeString('destination', { description: 'wordpress or shopify' }),
    target: t.exposeString('target', { description: 'The WordPress site address, or the shop domain' }),
    productId: t.exposeString('productId', { nullable: true, description: 'The Shopify product the files are attached to' }),
    total: t.int({ resolve: (e) => e.items.length }),
    exported: t.int({ resolve: (e) => e.items.filter((i) => i.status === 'exported').length }),
    failed: t.int({ resolve: (e) => e.items.filter((i) => i.status === 'failed').length }),
    pending: t.int({ resolve: (e) => e.items.filter((i) => i.status === 'pending').length }),
    items: t.field({ type: [ExportItemRef], resolve: (e) => e.items as never }),
  }),
});

builder.prismaObjectField(JobRef, 'export', (t) =>
  t.field({
    type: JobExportRef,
    nullable: true,
    description: 'The export of an export job (kind export.wordpress or export.shopify); null for other jobs',
    select: { kind: true, input: true, exportItems: { orderBy: { position: 'asc' } } },
    resolve: (job) => {
      if (!(EXPORT_KINDS as readonly string[]).includes(job.kind)) return null;
      if (job.kind === SHOPIFY_EXPORT_KIND) {
        const input = job.input as unknown as ShopifyJobInput;
        return { destination: 'shopify' as const, target: input.shop, productId: input.product_id, items: job.exportItems };
      }
      return { destination: 'wordpress' as const, target: (job.input as unknown as WordPressJobInput).wp_url, productId: null, items: job.exportItems };
    },
  }),
);

const WordPressExportInput = builder.inputType('WordPressExportInput', {
  description: 'POST /api/automation/export/wordpress (same names as the REST body, in camelCase)',
  fields: (t) => ({
    wpUrl: t.string({ required: true, description: 'The https:// address of the WordPress site' }),
    wpUser: t.string({ required: true }),
    wpPassword: t.string({ required: true, description: 'An application password of that user; used for this export only' }),
    mediaIds: t.intList({ required: true, description: 'Ids of the caller\'s media items, 1 to 100' }),
  }),
});

const ShopifyExportInput = builder.inputType('ShopifyExportInput', {
  description: 'POST /api/automation/export/shopify (same names as the REST body, in camelCase)',
  fields: (t) => ({
    shop: t.string({ required: true, description: "The shop's myshopify.com domain" }),
    accessToken: t.string({ required: true, description: 'An Admin API access token; used for this export only' }),
    mediaIds: t.intList({ required: true, description: 'Ids of the caller\'s media items, 1 to 100' }),
    productId: t.string({ description: 'Attach the files to this product: its number or gid://shopify/Product/<number>' }),
  }),
});

builder.mutationFields((t) => ({
  exportToWordPress: t.prismaField({
    type: JobRef,
    description: 'Starts a job that uploads the media items to a WordPress site (poll it with `job`)',
    authScopes: authScopesOf(MASTER_KEY),
    errors: {},
    args: { input: t.arg({ type: WordPressExportInput, required: true }) },
    resolve: (_query, _root, { input }, ctx) =>
      ctx.services.exports.startWordPress(ctx.actor!, { wp_url: input.wpUrl, wp_user: input.wpUser, wp_password: input.wpPassword, media_ids: input.mediaIds }),
  }),
  exportToShopify: t.prismaField({
    type: JobRef,
    description: "Starts a job that creates the media items as files of a Shopify shop, attached to a product when one is given",
    authScopes: authScopesOf(MASTER_KEY),
    errors: {},
    args: { input: t.arg({ type: ShopifyExportInput, required: true }) },
    resolve: (_query, _root, { input }, ctx) =>
      ctx.services.exports.startShopify(ctx.actor!, { shop: input.shop, access_token: input.accessToken, media_ids: input.mediaIds, product_id: input.productId ?? undefined }),
  }),
}));
