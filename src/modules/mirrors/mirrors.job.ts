// The bulk mirror job's handler, run by whichever process claims the job: it checks the URLs still
// pending (a rerun after a crash skips those an earlier try recorded), MIRROR_CONCURRENCY at a time
// and MIRROR_HOST_CONCURRENCY per host, and records each outcome as it comes. A match registers the
// URL as a mirror of its image object and pays the bulk_mirror_match reward in one transaction; the
// URL is unique across the service, so it is registered, and paid, once ever, whoever sends it.
import PQueue from 'p-queue';
import type { Database } from '../../platform/database/database.js';
import { AppError } from '../../platform/errors.js';
import type { Logger } from '../../platform/logger.js';
import type { MirrorCheck } from '../../generated/prisma/client.js';
import type { JobHandler } from '../jobs/index.js';
import type { Neighbour } from '../image-objects/index.js';
import { toMinor, type RewardsService } from '../ledger/index.js';
import type { ImageAtUrl } from './image-at-url.js';
import type { MirrorsConfig } from './mirrors.settings.js';

export interface MirrorJobDependencies {
  db: Database;
  images: ImageAtUrl;
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
    await finish(deps.db, check, { state: 'unmatched', reason: 'no known image object is this image (none within the same-object blockhash distance)' });
    return;
  }
  await recordMatch(deps, accountId, check, found);
}

/**
 * One transaction: the check leaves pending (so a second worker on the same job records nothing),
 * the URL is registered unless some account registered it before, and the first registration pays.
 */
async function recordMatch(deps: MirrorJobDependencies, accountId: number, check: MirrorCheck, found: Neighbour): Promise<void> {
  const match = { objectId: found.object.id, distance: found.distance };
  try {
    await deps.db.prisma.$transaction(async (tx) => {
      const moved = await tx.mirrorCheck.updateMany({ where: { id: check.id, state: 'pending' }, data: { state: 'matched', ...match, checkedAt: new Date() } });
      if (moved.count === 0) return;
      // ON CONFLICT DO NOTHING: a concurrent registration of the same URL waits for this one and then adds nothing.
      const [mirror] = await tx.objectMirror.createManyAndReturn({ data: [{ url: check.url, accountId, bulkMirrorId: check.bulkMirrorId, ...match }], skipDuplicates: true });
      if (!mirror) {
        const earlier = await tx.objectMirror.findUnique({ where: { url: check.url }, select: { objectId: true } });
        await tx.mirrorCheck.update({ where: { id: check.id }, data: { reason: `already registered as a mirror${earlier ? ` of image object ${earlier.objectId}` : ''}: a URL is paid once, to the first to send it` } });
        return;
      }
      const award = await deps.rewards.award(accountId, 'bulk_mirror_match', `object-mirror:${mirror.id}`, { tx });
      if (award.status === 'capped') throw new Capped(award.message);
      const coins = award.status === 'paid' || award.status === 'replayed' ? (toMinor(award.coins) ?? 0) : 0;
      await tx.mirrorCheck.update({ where: { id: check.id }, data: { coins: BigInt(coins), reason: coins > 0 ? null : (award.message ?? null) } });
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
