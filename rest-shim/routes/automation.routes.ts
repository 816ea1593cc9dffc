// Spec "Automation": webhooks (with their delivery log, our route), schedules and exports. Webhooks
// and schedules are declared in src/modules/automation/automation.operations.ts; the exports (their
// GraphQL input differs from the REST body: product_id) are written here.
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { restRoutesOf } from '../derive.js';
import { MASTER_KEY } from '../../src/modules/access/index.js';
import { automationOperations } from '../../src/modules/automation/automation.operations.js';
import { unwrap } from '../result.js';
import { ExportToShopifyDocument, ExportToWordPressDocument, type GetJobQuery } from '../generated/operations.js';
import { shopifyExportSchema, wordpressExportSchema } from '../../src/modules/automation/exports/exports.input.js';
import { EXPORT_ITEM_STATES } from '../../src/modules/automation/exports/exports.service.js';
import { JOB_STATES } from '../../src/modules/jobs/jobs.service.js';
import { count, id } from '../schemas.js';

/** The answer of both export routes: the scrape answer's shape (the job to poll). */
const exportStarted = z.object({ status: z.enum(JOB_STATES), job_id: id, message: z.string(), poll_url: z.string().describe('GET it to follow the job; its `export` lists each item') });

/** The `export` block of a polled export job (GET /api/jobs/{job_id}). */
export const exportSchema = z
  .object({
    destination: z.enum(['wordpress', 'shopify']),
    target: z.string().describe('the WordPress site address, or the shop domain'),
    product_id: z.string().nullable().describe('Shopify: the product the files are attached to'),
    total: count,
    exported: count,
    failed: count,
    pending: count,
    items: z.array(
      z.object({
        media_id: id,
        status: z.enum(EXPORT_ITEM_STATES),
        remote_id: z.string().nullable().describe('the WordPress media id, or the Shopify file gid'),
        remote_url: z.string().nullable().describe("the file's URL at the destination"),
        error: z.string().nullable().describe('why the item was not exported (or not attached)'),
      }),
    ),
  })
  .meta({ id: 'JobExport', description: 'Where an export job sends its items, and how each one went, in the order asked' });

export function exportJson(e: NonNullable<NonNullable<GetJobQuery['job']>['export']>): z.input<typeof exportSchema> {
  return {
    destination: e.destination as 'wordpress' | 'shopify',
    target: e.target,
    product_id: e.productId,
    total: e.total,
    exported: e.exported,
    failed: e.failed,
    pending: e.pending,
    items: e.items.map((item) => ({ media_id: item.mediaId, status: item.status, remote_id: item.remoteId, remote_url: item.remoteUrl, error: item.error })),
  };
}

function started(job: { databaseId: number; state: (typeof JOB_STATES)[number] }, what: string) {
  const poll = `/api/jobs/${job.databaseId}`;
  return { status: job.state, job_id: job.databaseId, message: `${what} export job queued; poll ${poll} every 2 to 5 seconds until its status is completed or failed`, poll_url: poll };
}

export const automationRoutes = [
  ...restRoutesOf(automationOperations),
  defineRoute({
    method: 'POST',
    path: '/api/automation/export/wordpress',
    auth: 'key',
    key: MASTER_KEY,
    summary: 'Upload media items to a WordPress site through its REST API, as a job (wp_url, wp_user, wp_password: an application password, media_ids)',
    description:
      'Each item is sent with POST {wp_url}/wp-json/wp/v2/media (Basic authentication), its title, alt text and caption set from the item. The password is sealed for the job and dropped when it ends; it is never stored in the clear, logged or returned. Poll the job: its `export` lists each item with its WordPress id and URL, or its error.',
    operation: ExportToWordPressDocument,
    request: { body: wordpressExportSchema },
    response: exportStarted,
    errors: { 409: 'a media item is in the trash' },
    successStatus: 202,
    variables: ({ body }) => ({ input: { wpUrl: body.wp_url, wpUser: body.wp_user, wpPassword: body.wp_password, mediaIds: body.media_ids } }),
    shape: (data) => started(unwrap(data.exportToWordPress), 'WordPress'),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/automation/export/shopify',
    auth: 'key',
    key: MASTER_KEY,
    summary: "Create media items as files of a Shopify shop through the Admin GraphQL API, as a job (shop, access_token, media_ids, product_id to attach them)",
    description:
      "Each item becomes a Shopify file (fileCreate, from a short-lived signed URL of ours or a staged upload), polled until READY, then attached to the product when product_id is given. The token is sealed for the job and dropped when it ends; it is never stored in the clear, logged or returned. Poll the job: its `export` lists each item with its file gid and URL, or its error.",
    operation: ExportToShopifyDocument,
    request: { body: shopifyExportSchema },
    response: exportStarted,
    errors: { 409: 'a media item is in the trash' },
    successStatus: 202,
    variables: ({ body }) => ({
      input: { shop: body.shop, accessToken: body.access_token, mediaIds: body.media_ids, productId: body.product_id === undefined ? undefined : String(body.product_id) },
    }),
    shape: (data) => started(unwrap(data.exportToShopify), 'Shopify'),
  }),
];
