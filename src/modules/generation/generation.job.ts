// The queued generation job (POST /api/replace/generate), run by the process that claimed it. Every
// step can be run again after a crash without doing its work twice:
// - the images are the job's blobs `jobs/<id>/generated-<n>-<provider>.png`: a rerun generates only
//   the numbers that have none yet (a crash after the upload keeps the image);
// - the media library takes each by its content hash, so a second ingest answers the first item;
// - the asset rows and the charge for them commit in one transaction, each image charged under the
//   transfer id `generate:job:<id>:<n>`, so no image is charged twice, and an image with a row is
//   never made again.
// The price of the images still to deliver is held first: an account that cannot pay fails the job
// before any provider is called (the job fails, and a failed job keeps no files).
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Database } from '../../platform/database/database.js';
import { readBounded, type BlobStore } from '../../platform/storage/blob-store.js';
import type { Logger } from '../../platform/logger.js';
import { loadSharp } from '../../platform/sharp.js';
import type { Actor } from '../accounts/index.js';
import { SUB_KEY_SCOPES } from '../api-keys/index.js';
import { jobFilesPrefix, type JobHandler } from '../jobs/index.js';
import type { MediaService } from '../media/index.js';
import type { GenerationBilling } from './generation.billing.js';
import { MAX_COUNT } from './generation.input.js';
import { ORIENTATIONS, styledPrompt } from './generation.prompts.js';
import { GENERATION_PROVIDERS, type GenerationProviderName } from './generation.settings.js';
import type { ProviderChain } from './provider-chain.js';

export const jobInputSchema = z.object({
  description: z.string(),
  style: z.string(),
  styleName: z.string(),
  count: z.number().int().min(1).max(MAX_COUNT),
  orientation: z.enum(ORIENTATIONS),
});

/** What a queued generation job keeps as its input (never a vendor key). */
export type GenerationJobInput = z.output<typeof jobInputSchema>;

const FILE = new RegExp(`^generated-(\\d+)-(${GENERATION_PROVIDERS.join('|')})\\.png$`);

/** The file of the image numbered `index` (0-based) as the provider made it. */
export function generatedFilename(index: number, provider: GenerationProviderName): string {
  return `generated-${index + 1}-${provider}.png`;
}

function parseFilename(name: string): { index: number; provider: GenerationProviderName } | null {
  const match = FILE.exec(name);
  return match ? { index: Number(match[1]) - 1, provider: match[2] as GenerationProviderName } : null;
}

export interface GenerationJobDependencies {
  db: Database;
  blobs: BlobStore;
  chain: ProviderChain;
  billing: GenerationBilling | null;
  media: Pick<MediaService, 'ingest'>;
  logger: Logger;
}

interface StoredImage {
  index: number;
  provider: GenerationProviderName;
  filename: string;
  png: Buffer;
  /** Known when the image was made in this run; read from the file for one an earlier try stored. */
  width?: number;
  height?: number;
}

export function createGenerationHandler({ db, blobs, chain, billing, media, logger }: GenerationJobDependencies): JobHandler {
  return async (job, context) => {
    const input = jobInputSchema.parse(job.input);
    const prefix = jobFilesPrefix(job.id);
    const recorded = await db.prisma.asset.findMany({ where: { jobId: job.id }, select: { filename: true } });
    const done = new Set(recorded.map((a) => parseFilename(a.filename)?.index));
    const pending = Array.from({ length: input.count }, (_, i) => i).filter((i) => !done.has(i));
    context.progress({ assetsFound: input.count, assetsStored: recorded.length });
    // Who the job acts as in the media library: its account (the request that queued it was checked then).
    const owner: Actor = { accountId: job.accountId, handle: '', tier: '', keyId: 0, keyKind: 'master', scopes: new Set(SUB_KEY_SCOPES), requestBudget: null };

    if (pending.length > 0) {
      const hold = await billing?.hold(job.accountId, pending.length, `job:${job.id}`);
      try {
        const stored = await uploadedBefore(blobs, prefix, pending);
        const toMake = pending.filter((i) => !stored.has(i));
        if (toMake.length > 0) {
          const made = await chain.generate({ prompt: styledPrompt(input.description, { slug: input.style, name: input.styleName }), orientation: input.orientation, count: toMake.length, signal: context.signal });
          for (const [k, image] of made.images.entries()) {
            const index = toMake[k]!;
            const filename = generatedFilename(index, made.provider);
            await blobs.put(`${prefix}${filename}`, image.png, { contentType: 'image/png', size: image.png.length });
            stored.set(index, { index, provider: made.provider, filename, png: image.png, width: image.width, height: image.height });
            context.progress({ assetsStored: recorded.length + stored.size });
          }
        }
        const ready = [...stored.values()].sort((a, b) => a.index - b.index);
        const rows = await Promise.all(ready.map((image) => assetRow(job.id, prefix, image)));
        // Into the library before the rows: a crash between the two ingests again, which finds the same items.
        for (const image of ready) await media.ingest(owner, { body: image.png, filename: image.filename }, { name: `${input.description.slice(0, 200)} (${image.index + 1})`, tags: ['generated', input.style], group: `generation job ${job.id}` });
        await db.prisma.$transaction(async (tx) => {
          await tx.asset.createMany({ data: rows, skipDuplicates: true });
          if (hold && billing) await billing.settle(hold, job.accountId, ready.map((image) => ({ id: `generate:job:${job.id}:${image.index + 1}`, images: 1, reference: `job:${job.id}` })), { tx });
        });
      } catch (error) {
        if (hold && billing) await billing.release(hold).catch((e: unknown) => logger.error({ err: e, jobId: job.id }, 'generation job: could not release its credit hold'));
        throw error;
      }
    }
    const stored = await db.prisma.asset.count({ where: { jobId: job.id } });
    return { assetsFound: input.count, assetsStored: stored };
  };
}

/** Images of these numbers that an earlier try of the job uploaded before it was cut short. */
async function uploadedBefore(blobs: BlobStore, prefix: string, wanted: number[]): Promise<Map<number, StoredImage>> {
  const found = new Map<number, StoredImage>();
  for await (const info of blobs.list(prefix)) {
    const name = info.key.slice(prefix.length);
    const parsed = parseFilename(name);
    if (!parsed || !wanted.includes(parsed.index) || found.has(parsed.index)) continue;
    const blob = await blobs.get(info.key);
    if (!blob) continue;
    found.set(parsed.index, { ...parsed, filename: name, png: (await readBounded(blob.body, Number.POSITIVE_INFINITY))! });
  }
  return found;
}

async function assetRow(jobId: number, prefix: string, image: StoredImage) {
  const { width, height } = image.width !== undefined && image.height !== undefined ? image : await (await loadSharp())(image.png).metadata();
  return {
    jobId,
    filename: image.filename,
    // No page it came from: the provider that made it.
    url: `generated:${image.provider}`,
    type: 'image',
    contentType: 'image/png',
    size: image.png.length,
    sha256: createHash('sha256').update(image.png).digest('hex'),
    width: width ?? null,
    height: height ?? null,
    storageKey: `${prefix}${image.filename}`,
  };
}
