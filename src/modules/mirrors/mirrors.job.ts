// The bulk mirror job's handler, run by whichever process claims the job: it checks the URLs still
// pending (a rerun after a crash skips those an earlier try recorded), MIRROR_CONCURRENCY at a time
// and MIRROR_HOST_CONCURRENCY per host, and records each outcome as it comes. A match (the
// image-objects rule for the same image) registers the URL as a mirror of its image object and pays
// the bulk_mirror_match reward in one transaction. The URL is unique across the service, so it is
// registered once ever, whoever sends it; the reward is paid once per account and image object (more
// URLs of one image, query-string variants, redirects, other jobs: nothing more), and never for an
// object the caller contributed (community or wiki) or holds in its own media library, nor for a
// low-information object (flat, gradient, almost blank, tiny: matched by exact bytes, which anyone
// can make again).
import PQueue from 'p-queue';
import type { Database } from '../../platform/database/database.js';
import { AppError } from '../../platform/errors.js';
import type { Logger } from '../../platform/logger.js';
import type { MirrorCheck } from '../../generated/prisma/client.js';
import type { JobHandler } from '../jobs/index.js';
import { isLowInformation, type ImageObjectsService, type Neighbour } from '../image-objects/index.js';
import { toMinor, type RewardsService } from '../ledger/index.js';
import type { ImageAtUrl } from './image-at-url.js';
import type { MirrorsConfig } from './mirrors.settings.js';

export interface MirrorJobDependencies {
  db: Database;
  images: ImageAtUrl;
  imageObjects: ImageObjectsService;
  rewards: RewardsService;
  logger: Logger;
  settings: MirrorsConfig;
}

/** Thrown inside the paying transaction to undo the registration of a URL the daily cap left unpaid. */
class Capped extends Error {}

export function createMirrorHandler(deps: MirrorJobDependencies): JobHandler {
  return async (job, context) => {
    const pending = await deps.db.prisma.mirrorCheck.findMany({ where: { bulkMirrorId: job.id, state: 'pending' }, orderBy: { position: 'asc' } });
    const overall = new PQueue({ concurrency: deps.settings.concurrency });
    const hosts = new Map<string, PQueue>();
    const perHost = (url: string) => {
      const host = new URL(url).host;
      let queue = hosts.get(host);
      if (!queue) hosts.set(host, (queue = new PQueue({ concurrency: deps.settings.hostConcurrency })));
      return queue;
    };
    // A host's own queue first, then an overall slot: a URL waiting for its busy host holds no slot another host could use.
    await Promise.all(
      pending.map((check) =>
        perHost(check.url).add(() =>
          overall.add(async () => {
            if (context.signal.aborted) return; // the lease was lost: whoever holds the job now checks the rest
            await checkOne(deps, job.accountId, check, context.signal);
          }),
        ),
      ),
    );
  };
}

async function checkOne(deps: MirrorJobDependencies, accountId: number, check: MirrorCheck, signal: AbortSignal): Promise<void> {
  let found: Neighbour | null;
  try {
    const image = await deps.images.read(check.url, signal);
    found = await deps.images.knownObject(image);
  } catch (error) {
    if (signal.aborted) return;
    if (!(error instanceof AppError)) deps.logger.warn({ err: error, jobId: check.bulkMirrorId, url: check.url }, 'checking a mirror URL failed unexpectedly');
    const reason = error instanceof AppError ? error.message : 'checking this URL failed unexpectedly; see the service log';
    await finish(deps.db, check, { state: 'unmatched', reason });
    return;
  }
  if (!found) {
    await finish(deps.db, check, { state: 'unmatched', reason: 'no known image object is this image (by its exact bytes, or, for an image that is not plain, within the same-object blockhash distance)' });
    return;
  }
  await recordMatch(deps, accountId, check, found);
}

/**
 * Why the caller earns nothing for a mirror of this object whatever the URL (null: it may be paid):
 * the object is low-information, or is the caller's own (a community item or wiki photo of it, or
 * the same image in the caller's live media library).
 */
async function unpaidReason(deps: MirrorJobDependencies, accountId: number, found: Neighbour): Promise<string | null> {
  const object = found.object;
  if (isLowInformation(object)) {
    return `image object ${object.id} is a plain image (flat, a gradient, almost blank or tiny): it is matched by its exact bytes only, which anyone can make again, so its mirrors earn nothing`;
  }
  const [contributed, photographed] = await Promise.all([
    deps.db.prisma.communityItem.findFirst({ where: { accountId, objectId: object.id }, select: { id: true } }),
    deps.db.prisma.wikiMedia.findFirst({ where: { accountId, objectId: object.id }, select: { id: true } }),
  ]);
  if (contributed) return `image object ${object.id} is your own contribution (community item ${contributed.id}): mirrors of your own images earn nothing`;
  if (photographed) return `image object ${object.id} is your own wiki photo (${photographed.id}): mirrors of your own images earn nothing`;
  if (await deps.imageObjects.inLibrary(accountId, object)) return `image object ${object.id} is in your own media library: mirrors of your own images earn nothing`;
  return null;
}

/**
 * One transaction: the check leaves pending (so a second worker on the same job records nothing),
 * the URL is registered unless some account registered it before, and the first registration of
 * an object by this account pays, unless unpaidReason says otherwise.
 */
async function recordMatch(deps: MirrorJobDependencies, accountId: number, check: MirrorCheck, found: Neighbour): Promise<void> {
  const match = { objectId: found.object.id, distance: found.distance };
  const unpaid = await unpaidReason(deps, accountId, found);
  try {
    await deps.db.prisma.$transaction(async (tx) => {
      const moved = await tx.mirrorCheck.updateMany({ where: { id: check.id, state: 'pending' }, data: { state: 'matched', ...match, checkedAt: new Date() } });
      if (moved.count === 0) return;
      // ON CONFLICT DO NOTHING: a concurrent registration of the same URL waits for this one and then adds nothing.
      const [mirror] = await tx.objectMirror.createManyAndReturn({ data: [{ url: check.url, accountId, bulkMirrorId: check.bulkMirrorId, ...match }], skipDuplicates: true });
      const note = (reason: string) => tx.mirrorCheck.update({ where: { id: check.id }, data: { reason } });
      if (!mirror) {
        const earlier = await tx.objectMirror.findUnique({ where: { url: check.url }, select: { objectId: true } });
        await note(`already registered as a mirror${earlier ? ` of image object ${earlier.objectId}` : ''}: a URL is paid once, to the first to send it`);
        return;
      }
      if (unpaid) return void (await note(unpaid));
      const paidBefore = await tx.objectMirror.findFirst({ where: { accountId, objectId: match.objectId, id: { not: mirror.id } }, select: { url: true } });
      const once = `a mirror pays once per image object and account: you registered a mirror of image object ${match.objectId} before`;
      if (paidBefore) return void (await note(`${once} (${paidBefore.url.slice(0, 200)})`));
      // Keyed by (action, object, account): a concurrent match of the same object by this account is paid once.
      const award = await deps.rewards.award(accountId, 'bulk_mirror_match', `image-object:${match.objectId}`, { tx });
      if (award.status === 'capped') throw new Capped(award.message);
      const coins = award.status === 'paid' ? (toMinor(award.coins) ?? 0) : 0;
      const reason = coins > 0 ? null : award.status === 'replayed' ? once : (award.message ?? null);
      await tx.mirrorCheck.update({ where: { id: check.id }, data: { coins: BigInt(coins), reason } });
    });
  } catch (error) {
    if (!(error instanceof Capped)) throw error;
    // Nothing of the transaction stays: the URL is not registered, so a later request can still be paid for it.
    await finish(deps.db, check, { state: 'matched', ...match, reason: `${error.message}; the URL was not registered, so sending it again another day can earn it` });
  }
}

async function finish(db: Database, check: MirrorCheck, data: { state: 'matched' | 'unmatched'; reason: string; objectId?: number; distance?: number }): Promise<void> {
  await db.prisma.mirrorCheck.updateMany({ where: { id: check.id, state: 'pending' }, data: { ...data, checkedAt: new Date() } });
}
