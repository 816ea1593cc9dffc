// Issue 20, item 7: one user walks the whole economy beside a second user and the operator's grants
// (contributions, tagging others' items, a wiki subject, photo and votes, intel, a bounty posted and
// one claimed, an unlock sold and one bought, a conversion, a style), and at the end every coin the
// user holds is accounted for: each ledger transfer that credited the user's coin wallet is the
// operator's grant, a payment by another account for something of the user's (an unlock, a bounty
// slot), or a reward whose object is a verified action of the user's that the reward rules allow
// (not on the user's own item, once per item, a new image object, a verified photo ...). Anything
// else is an unaccounted coin and fails the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_ECONOMY } from '../../src/modules/economy/index.js';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { form, scene } from '../helpers/images.js';
import { confirmTagsByLabel } from '../helpers/community.js';

let t: TestApp;
let seed = 7000;

beforeAll(async () => {
  const vision = loadConfig({}).vision;
  t = await startTestApp({ vision: { ...vision, local: { ...vision.local, enabled: false } }, economy: { ...DEFAULT_ECONOMY, premiumStyles: { noir: 1 } } });
});
afterAll(() => t?.stop());

type Account = Awaited<ReturnType<TestApp['createAccount']>>;

const photo = async () => ({ body: await scene(++seed), name: `walk${seed}.jpg`, type: 'image/jpeg' });
const grantCoins = (handle: string, amount: number) => t.request('POST', `/api/admin/accounts/${handle}/coins`, { admin: true, body: { amount } });

async function ok(res: Promise<TestResponse>, status = 200): Promise<TestResponse['body']> {
  const answer = await res;
  expect(answer.status, answer.text).toBe(status);
  return answer.body;
}

async function contribute(account: Account, tags: string[] = []) {
  return ok(t.request('POST', '/api/community/contribute', { key: account.key, form: form(await photo(), { tags: JSON.stringify(tags) }) }), 201);
}

/** A transfer that credited the walker's coin wallet. */
interface Credit {
  id: string;
  amount: number;
  action: string;
  reference: string | null;
  debitOwner: number | null;
  debitSystem: string | null;
}

async function creditsOf(accountId: number): Promise<Credit[]> {
  const rows = await t.app.services.db.query<{ id: string; amount: string; action: string; reference: string | null; debit_owner: number | null; debit_system: string | null }>(
    `SELECT t."id", t."amount"::text AS amount, t."action", t."reference", d."ownerId" AS debit_owner, d."system"::text AS debit_system
     FROM "LedgerTransfer" t JOIN "LedgerAccount" c ON c."id" = t."creditAccountId" JOIN "LedgerAccount" d ON d."id" = t."debitAccountId"
     WHERE c."ownerId" = $1 AND c."currency" = 'coins' AND t."kind" IN ('single', 'post') ORDER BY t."seq"`,
    [accountId],
  );
  return rows.map((r) => ({ id: r.id, amount: Number(r.amount), action: r.action, reference: r.reference, debitOwner: r.debit_owner, debitSystem: r.debit_system }));
}

const idIn = (reference: string | null, prefix: string) => {
  const match = new RegExp(`^${prefix}:(\\d+)`).exec(reference ?? '');
  return match ? Number(match[1]) : null;
};

/**
 * Why the transfer paid the account, or null when nothing verified explains it. `seen` collects
 * the objects paid, so that a second payment for the same one is unaccounted.
 */
async function accountFor(accountId: number, credit: Credit, seen: Set<string>): Promise<string | null> {
  const prisma = t.app.services.db.prisma;
  const once = (key: string) => (seen.has(key) ? null : (seen.add(key), key));
  if (credit.action === 'grant') return credit.debitSystem === 'grants' ? 'the operator' : null;
  if (credit.action === 'community:unlock') {
    // Another account bought the original of an item of this account's.
    const itemId = idIn(credit.reference, 'community');
    const item = itemId ? await prisma.communityItem.findUnique({ where: { id: itemId } }) : null;
    if (!item || item.accountId !== accountId || !credit.debitOwner || credit.debitOwner === accountId) return null;
    const bought = await prisma.communityUnlock.findFirst({ where: { itemId: item.id, accountId: credit.debitOwner } });
    return bought ? once(`unlock:${item.id}:${credit.debitOwner}`) : null;
  }
  if (credit.action === 'bounty:claim') {
    // Another account's bounty, claimed with a verified upload of this account's.
    const itemId = idIn(credit.reference, 'community');
    const claim = itemId ? await prisma.bountyClaim.findUnique({ where: { itemId }, include: { bounty: true, item: true } }) : null;
    if (!claim || credit.debitSystem !== 'escrow' || claim.accountId !== accountId || claim.item.accountId !== accountId || !claim.item.verified) return null;
    return claim.bounty.accountId !== accountId ? once(`bounty-claim:${itemId}`) : null;
  }
  if (!credit.action.startsWith('reward:') || credit.debitSystem !== 'rewards') return null;
  const action = credit.action.slice('reward:'.length);
  switch (action) {
    case 'community_upload': {
      // A new image object from this account: its own item, not a flat image.
      const objectId = idIn(credit.reference, 'image-object');
      const item = objectId ? await prisma.communityItem.findFirst({ where: { objectId, accountId } }) : null;
      return item ? once(`upload:${objectId}`) : null;
    }
    case 'tagging':
    case 'tag_verified_bonus': {
      // Tags on someone else's item, paid once per item (and the bonus only for a confirmed set).
      const itemId = idIn(credit.reference, 'community');
      const item = itemId ? await prisma.communityItem.findUnique({ where: { id: itemId } }) : null;
      if (!item || item.accountId === accountId) return null;
      const taggings = await prisma.communityTagging.findMany({ where: { itemId: item.id, accountId } });
      if (taggings.length === 0 || (action === 'tag_verified_bonus' && !taggings.some((tagging) => tagging.verified))) return null;
      return once(`${action}:${item.id}`);
    }
    case 'wiki_vote': {
      const mediaId = idIn(credit.reference, 'wiki-photo');
      const media = mediaId ? await prisma.wikiMedia.findUnique({ where: { id: mediaId } }) : null;
      const voted = media ? await prisma.wikiVote.findFirst({ where: { mediaId: media.id, accountId } }) : null;
      return media && voted && media.accountId !== accountId ? once(`vote:${media.id}`) : null;
    }
    case 'wiki_photo': {
      // This account's photo, verified by the votes of three other accounts.
      const mediaId = idIn(credit.reference, 'wiki-photo');
      const media = mediaId ? await prisma.wikiMedia.findUnique({ where: { id: mediaId } }) : null;
      if (!media || media.accountId !== accountId || media.status !== 'verified') return null;
      const confirms = await prisma.wikiVote.count({ where: { mediaId: media.id, vote: 'confirm', accountId: { not: accountId } } });
      return confirms >= 3 ? once(`photo:${media.id}`) : null;
    }
    case 'wiki_subject': {
      const subjectId = idIn(credit.reference, 'wiki-subject');
      const subject = subjectId ? await prisma.wikiSubject.findUnique({ where: { id: subjectId } }) : null;
      return subject && subject.accountId === accountId && subject.status === 'approved' ? once(`subject:${subject.id}`) : null;
    }
    case 'intel_comment':
    case 'intel_proposal': {
      // Posts on someone else's image: paid once per author and image, whatever the posts say.
      const itemId = idIn(credit.reference, 'intel:item');
      const post = itemId ? await prisma.intelPost.findFirst({ where: { itemId, accountId, kind: action === 'intel_comment' ? 'comment' : 'proposal' }, include: { item: true } }) : null;
      return post && post.item.accountId !== accountId ? once(`${action}:${itemId}`) : null;
    }
    case 'intel_merged': {
      // A proposal of this account's that the image's owner merged.
      const postId = idIn(credit.reference, 'intel');
      const post = postId ? await prisma.intelPost.findUnique({ where: { id: postId }, include: { item: true } }) : null;
      if (!post || post.accountId !== accountId || post.item.accountId === accountId || post.status !== 'merged') return null;
      return once(`merged:${post.id}`);
    }
    default:
      return null;
  }
}

/** Every transfer that credited the account, each explained; they add up to what it holds. */
async function expectEveryCoinAccountedFor(account: Account): Promise<void> {
  const credits = await creditsOf(account.id);
  const seen = new Set<string>();
  const unaccounted: Credit[] = [];
  for (const credit of credits) if ((await accountFor(account.id, credit, seen)) === null) unaccounted.push(credit);
  expect(unaccounted).toEqual([]);
  const wallet = await t.app.services.ledger.wallet(account.id, 'coins');
  expect(credits.reduce((sum, c) => sum + c.amount, 0)).toBe(wallet.totalCredited);
  expect(await t.app.services.ledger.trialBalance('coins')).toBe(0);
}

/**
 * The walk. With `farm`, the walker also tries the ways to farm coins that issue 20 closes: tagging
 * its own items, tagging the same item again, an intel comment repeated with other case and
 * punctuation. The rules answer those with nothing paid, so the accounting holds either way.
 */
async function walk(farm: boolean): Promise<Account> {
  const walker = await t.createAccount('walker');
  const neighbour = await t.createAccount('neighbour');
  await ok(grantCoins(walker.handle, 20));
  await ok(grantCoins(neighbour.handle, 30));

  // Contributions: two new images (paid), the same image again (not paid).
  const mine = await contribute(walker, ['harbour']);
  const second = await contribute(walker, ['harbour', 'boats']);
  expect(second.coins_earned).toBe(2);
  const theirs = await contribute(neighbour, ['street']);
  const theirsToo = await contribute(neighbour, ['market']);

  // Tagging the neighbour's items.
  expect((await ok(t.request('POST', `/api/community/${theirs.id}/tag`, { key: walker.key, body: { tags: ['cobblestones'] } }))).coins_earned).toBeGreaterThan(0);
  await ok(t.request('POST', `/api/community/${theirsToo.id}/tag`, { key: walker.key, body: { tags: ['stalls'] } }));
  if (farm) {
    for (const tags of [['mine'], ['mine-again'], ['more']]) {
      const own = await ok(t.request('POST', `/api/community/${mine.id}/tag`, { key: walker.key, body: { tags } }));
      expect(own.coins_earned).toBe(0);
    }
    const again = await ok(t.request('POST', `/api/community/${theirs.id}/tag`, { key: walker.key, body: { tags: ['paving'] } }));
    expect(again.coins_earned).toBe(0);
  }

  // The wiki: a subject the operator approves, a photo three others verify, votes on the neighbour's photo.
  const subject = await ok(t.request('POST', '/api/wiki/subjects', { key: walker.key, body: { name: `Harbour Light ${seed}`, category: 'landmark' } }), 201);
  await ok(t.request('POST', `/api/admin/wiki/subjects/${encodeURIComponent(subject.slug)}/approve`, { admin: true }));
  const wikiPhoto = await ok(t.request('POST', `/api/wiki/subjects/${encodeURIComponent(subject.slug)}/contribute`, { key: walker.key, form: form(await photo(), { photo_type: 'exterior' }) }), 201);
  const voters = [neighbour, await t.createAccount('voter'), await t.createAccount('voter')];
  for (const voter of voters) await ok(t.request('POST', `/api/wiki/metadata/${wikiPhoto.photo.id}/vote`, { key: voter.key, body: { vote: 'confirm' } }));
  const neighbourPhoto = await ok(t.request('POST', `/api/wiki/subjects/${encodeURIComponent(subject.slug)}/contribute`, { key: neighbour.key, form: form(await photo(), { photo_type: 'interior' }) }), 201);
  expect((await ok(t.request('POST', `/api/wiki/metadata/${neighbourPhoto.photo.id}/vote`, { key: walker.key, body: { vote: 'confirm' } }))).coins_earned).toBe(0.5);

  // Intel on the neighbour's image.
  expect((await ok(t.request('POST', `/api/wiki/image/${theirs.id}/intel`, { key: walker.key, body: { text: 'Nice pic' } }), 201)).coins_earned).toBeGreaterThan(0);
  if (farm) {
    const folded = await t.request('POST', `/api/wiki/image/${theirs.id}/intel`, { key: walker.key, body: { text: 'nice  pic.' } });
    expect(folded.status).toBe(409);
  }

  // Bounties: the neighbour's, claimed with a verified upload; the walker's own, escrowed.
  const bounty = await ok(t.request('POST', '/api/economy/bounties', { key: neighbour.key, body: { subject_slug: 'lighthouse', reward_per_photo: 3, photos_needed: 1 } }), 201);
  const lighthouse = await contribute(walker, ['lighthouse']);
  // Its tags confirmed by a vision label (vision is off here).
  await confirmTagsByLabel(t, lighthouse.id);
  expect((await ok(t.request('POST', `/api/economy/bounties/${bounty.id}/claim`, { key: walker.key, body: { crowdsource_id: lighthouse.id } }))).paid).toBe(3);
  await ok(t.request('POST', '/api/economy/bounties', { key: walker.key, body: { subject_slug: 'tower', reward_per_photo: 1, photos_needed: 2 } }), 201);

  // Unlocks: the neighbour buys the walker's original; the walker buys the neighbour's.
  const forSale = await ok(t.request('POST', '/api/community/ingest', { key: walker.key, form: form(await photo(), { unlock_price: '5' }) }), 201);
  expect((await ok(t.request('POST', `/api/community/${forSale.intel_id}/unlock`, { key: neighbour.key }))).charged).toBe(5);
  const theirSale = await ok(t.request('POST', '/api/community/ingest', { key: neighbour.key, form: form(await photo(), { unlock_price: '2' }) }), 201);
  await ok(t.request('POST', `/api/community/${theirSale.intel_id}/unlock`, { key: walker.key }));

  // Spending: a conversion and a premium style.
  await ok(t.request('POST', '/api/economy/bridge/convert', { key: walker.key, body: { coins: 2 } }));
  await ok(t.request('POST', '/api/economy/styles/noir/unlock', { key: walker.key }));
  return walker;
}

describe('one user walks the whole economy', () => {
  it('holds only coins paid for verified actions, by other accounts for its things, or by the operator', async () => {
    const walker = await walk(false);
    await expectEveryCoinAccountedFor(walker);
    const my = await ok(t.request('GET', '/api/community/my', { key: walker.key }));
    const wallet = await t.app.services.ledger.wallet(walker.id, 'coins');
    expect([my.balance, my.held]).toEqual([wallet.available / 10_000, 2]);
  });

  it('still does when the walker tries to farm: own items tagged, an item tagged twice, a comment repeated', async () => {
    const walker = await walk(true);
    await expectEveryCoinAccountedFor(walker);
  });
});
