// Exports as callers see them (master key only), stated once: an export job's per-item outcome as
// `Job.export` (null for other jobs), its answer object (REST names, src/platform/wire.ts) and the
// GraphQL types made from it (src/graphql/answer-object.ts). Starting an export is declared in
// automation.operations.ts. Secrets are input only.
import { z } from 'zod';
import { builder } from '../../../graphql/builder.js';
import { answerEnum, answerFields, answerObject } from '../../../graphql/answer-object.js';
import { count, id } from '../../../platform/wire.js';
import { JobRef } from '../../jobs/jobs.schema.js';
import { EXPORT_ITEM_STATES, EXPORT_KINDS, SHOPIFY_EXPORT_KIND, type ShopifyJobInput, type WordPressJobInput } from './exports.service.js';
import type { ExportItem } from '../../../generated/prisma/client.js';

answerEnum('ExportItemState', { values: EXPORT_ITEM_STATES });

const exportItem = z.object({
  media_id: id,
  status: z.enum(EXPORT_ITEM_STATES),
  remote_id: z.string().nullable().describe('the WordPress media id, or the Shopify file gid'),
  remote_url: z.string().nullable().describe("the file's URL at the destination"),
  error: z.string().nullable().describe('why the item was not exported (or not attached)'),
});

const ExportItemRef = builder.prismaObject('ExportItem', {
  description: 'One media item of an export, in the order asked',
  fields: (t) => answerFields(t, exportItem, { status: { resolve: (item: ExportItem) => item.status } }),
});

/** The `export` block of a polled export job (GET /api/jobs/{job_id}). */
export const jobExport = z
  .object({
    destination: z.enum(['wordpress', 'shopify']),
    target: z.string().describe('the WordPress site address, or the shop domain'),
    product_id: z.string().nullable().describe('Shopify: the product the files are attached to'),
    total: count,
    exported: count,
    failed: count,
    pending: count,
    items: z.array(exportItem),
  })
  .meta({ id: 'JobExport', description: 'Where an export job sends its items, and how each one went, in the order asked' });

interface JobExport {
  destination: 'wordpress' | 'shopify';
  target: string;
  productId: string | null;
  items: ExportItem[];
}
const countOf = (status: string) => ({ resolve: (e: JobExport) => e.items.filter((i) => i.status === status).length });

const JobExportRef = answerObject<JobExport>('JobExport', jobExport, {
  fields: (t) => ({
    destination: t.exposeString('destination', { description: 'wordpress or shopify' }),
    total: { resolve: (e) => e.items.length },
    exported: countOf('exported'),
    failed: countOf('failed'),
    pending: countOf('pending'),
    items: t.field({ type: [ExportItemRef], resolve: (e) => e.items }),
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
