// The access matrix: every GraphQL Node type of the schema, and the resources with a policy that are
// not Node types (wiki subjects and photos, bounties, challenges), against every kind of key, over
// every way that reaches their rows (node, nodes, the type's own query, its connection, its REST
// route). The list of Node types comes from the schema, so a new one fails here until it has a row,
// and each row's key rule must be the one its module's access policy states.
/* eslint-disable @typescript-eslint/no-explicit-any -- the cells read untyped JSON answers */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObjectType } from 'graphql';
import { schema } from '../../src/graphql/schema.js';
import { accessPolicies, ANY_KEY, MASTER_KEY, SCOPE, type KeyRule } from '../../src/modules/access/index.js';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { form, photo, scene } from '../helpers/images.js';

type KeyKind = 'master' | 'sub:scrape' | 'sub:generate' | 'sub:search' | 'sub:media' | 'revoked' | 'expired' | 'other account';
const KEY_KINDS: KeyKind[] = ['master', 'sub:scrape', 'sub:generate', 'sub:search', 'sub:media', 'revoked', 'expired', 'other account'];
/** What a cell expects: the row, a 403 naming what is missing, a 401, or nothing (not found). */
type Outcome = 'row' | 'forbidden' | 'unauthenticated' | 'nothing';
type Need = 'master' | 'any' | 'scrape' | 'media';

interface Fixture {
  ownerKey: string;
  accountId: number;
  ids: Record<string, number>;
  filename: string;
  /** The owner's wiki subject. */
  slug: string;
}

interface Row {
  model: string;
  need: Need;
  /** Every account's keys read it (an open call, the running challenge), not only the owner's. */
  everyAccount?: true;
  /** The type's own query: GraphQL text with $id (Int!) or $slug (String!) and where the row's integer id is in data. */
  own?: { query: string; pick: (data: any) => number | null | undefined };
  /** The connection (or list query) that lists the row, and the listed integer ids. */
  connection?: { query: string; pick: (data: any) => number[] };
  /** A REST route that reads the row: a single object (404 for others) or a list that must not show it. */
  rest?: { path: (f: Fixture) => string; list?: (body: any) => number[] };
}

const ROWS: Record<string, Row> = {
  Account: {
    model: 'Account',
    need: 'any',
    own: { query: 'query { viewer { databaseId } }', pick: (d) => d.viewer?.databaseId },
  },
  SubKey: {
    model: 'ApiKey',
    need: 'master',
    connection: { query: '{ viewer { subKeys { edges { node { databaseId } } } } }', pick: (d) => d.viewer.subKeys.edges.map((e: any) => e.node.databaseId) },
    rest: { path: () => '/api/platform/sub-keys', list: (b) => b.sub_keys.map((k: any) => k.id) },
  },
  Job: {
    model: 'Job',
    need: 'scrape',
    own: { query: 'query($id: Int!) { job(id: $id) { databaseId } }', pick: (d) => d.job?.databaseId },
    connection: { query: '{ viewer { jobs { edges { node { databaseId } } } } }', pick: (d) => d.viewer.jobs.edges.map((e: any) => e.node.databaseId) },
    rest: { path: (f) => `/api/jobs/${f.ids.Job}` },
  },
  Asset: {
    model: 'Asset',
    need: 'scrape',
    own: { query: 'query($job: Int!) { job(id: $job) { assets { edges { node { databaseId } } } } }', pick: (d) => d.job?.assets.edges[0]?.node.databaseId },
    rest: { path: (f) => `/files/${f.ids.Job}/${f.filename}` },
  },
  Schedule: {
    model: 'Schedule',
    need: 'scrape',
    own: { query: 'query($id: Int!) { schedule(id: $id) { databaseId } }', pick: (d) => d.schedule?.databaseId },
    connection: { query: '{ viewer { schedules { edges { node { databaseId } } } } }', pick: (d) => d.viewer.schedules.edges.map((e: any) => e.node.databaseId) },
    rest: { path: () => '/api/automation/schedules', list: (b) => b.schedules.map((s: any) => s.schedule_id ?? s.id) },
  },
  Webhook: {
    model: 'Webhook',
    need: 'master',
    own: { query: 'query($id: Int!) { webhook(id: $id) { databaseId } }', pick: (d) => d.webhook?.databaseId },
    connection: { query: '{ viewer { webhooks { edges { node { databaseId } } } } }', pick: (d) => d.viewer.webhooks.edges.map((e: any) => e.node.databaseId) },
    rest: { path: () => '/api/automation/webhooks', list: (b) => b.webhooks.map((w: any) => w.id) },
  },
  WebhookDelivery: {
    model: 'WebhookDelivery',
    need: 'master',
    own: { query: 'query($webhook: Int!) { webhook(id: $webhook) { deliveries { edges { node { databaseId } } } } }', pick: (d) => d.webhook?.deliveries.edges[0]?.node.databaseId },
    rest: { path: (f) => `/api/automation/webhooks/${f.ids.Webhook}/deliveries` },
  },
  Media: {
    model: 'MediaItem',
    need: 'media',
    own: { query: 'query($id: Int!) { media(id: $id) { databaseId } }', pick: (d) => d.media?.databaseId },
    connection: { query: '{ mediaConnection { edges { node { databaseId } } } }', pick: (d) => d.mediaConnection.edges.map((e: any) => e.node.databaseId) },
    rest: { path: (f) => `/api/media/${f.ids.Media}` },
  },
  Folder: {
    model: 'MediaFolder',
    need: 'media',
    connection: { query: '{ folders { databaseId } }', pick: (d) => d.folders.map((f: any) => f.databaseId) },
    rest: { path: () => '/api/media/folders', list: (b) => b.folders.map((f: any) => f.id) },
  },
  Collection: {
    model: 'Collection',
    need: 'media',
    own: { query: 'query($id: Int!) { collection(id: $id) { databaseId } }', pick: (d) => d.collection?.databaseId },
    connection: { query: '{ viewer { collections { edges { node { databaseId } } } } }', pick: (d) => d.viewer.collections.edges.map((e: any) => e.node.databaseId) },
    rest: { path: (f) => `/api/media/collections/${f.ids.Collection}` },
  },
  StockList: {
    model: 'StockList',
    need: 'media',
    own: { query: 'query($id: Int!) { stockList(id: $id) { databaseId } }', pick: (d) => d.stockList?.databaseId },
    connection: { query: '{ viewer { stockLists { edges { node { databaseId } } } } }', pick: (d) => d.viewer.stockLists.edges.map((e: any) => e.node.databaseId) },
    rest: { path: (f) => `/api/media/stock/lists/${f.ids.StockList}` },
  },
  // The fixture's item is unlisted: listed items are for every key, by design (test/community/).
  CommunityItem: {
    model: 'CommunityItem',
    need: 'any',
    own: { query: 'query($id: Int!) { communityItem(id: $id) { ... on QueryCommunityItemSuccess { data { databaseId } } } }', pick: (d) => d.communityItem?.data?.databaseId },
    connection: { query: '{ myCommunity { ... on QueryMyCommunitySuccess { data { items { databaseId } } } } }', pick: (d) => d.myCommunity?.data?.items.map((i: any) => i.databaseId) ?? [] },
    rest: { path: (f) => `/api/community/${f.ids.CommunityItem}` },
  },
  // A claim by the owner on a third account's item.
  OwnershipClaim: {
    model: 'OwnershipClaim',
    need: 'any',
    rest: { path: (f) => `/api/community/${f.ids.ClaimedItem}/claim`, list: (b) => b.claims.map((c: any) => c.id) },
  },
  // A pending proposal by the owner on a third account's item: its author and the item's owner read it.
  IntelPost: {
    model: 'IntelPost',
    need: 'any',
    own: { query: 'query($id: Int!) { intelPost(id: $id) { ... on QueryIntelPostSuccess { data { databaseId } } } }', pick: (d) => d.intelPost?.data?.databaseId },
    rest: { path: (f) => `/api/wiki/image/${f.ids.ClaimedItem}/proposals`, list: (b) => b.proposals.map((p: any) => p.id) },
  },
};

/** Resources with a policy that are not Node types: reached by their queries and routes only. */
const OTHER_ROWS: Record<string, Row> = {
  // The owner's subject, rejected by review: its creator still reads it, other accounts do not.
  WikiSubject: {
    model: 'WikiSubject',
    need: 'any',
    own: { query: 'query($slug: String!) { wikiSubject(slug: $slug) { ... on QueryWikiSubjectSuccess { data { databaseId } } } }', pick: (d) => d.wikiSubject?.data?.databaseId },
    rest: { path: (f) => `/api/wiki/subjects/${f.slug}` },
  },
  // A verified photo of that subject: seen wherever its subject is.
  WikiPhoto: {
    model: 'WikiMedia',
    need: 'any',
    own: { query: 'query($slug: String!) { wikiSubject(slug: $slug) { ... on QueryWikiSubjectSuccess { data { verifiedPhotos { databaseId } } } } }', pick: (d) => d.wikiSubject?.data?.verifiedPhotos[0]?.databaseId },
    rest: { path: (f) => `/api/wiki/subjects/${f.slug}`, list: (b) => b.media.map((m: any) => m.id) },
  },
  Bounty: {
    model: 'Bounty',
    need: 'any',
    everyAccount: true,
    connection: { query: '{ bounties { ... on QueryBountiesSuccess { data { bounties { databaseId } } } } }', pick: (d) => d.bounties?.data?.bounties.map((b: any) => b.databaseId) ?? [] },
    rest: { path: () => '/api/economy/bounties', list: (b) => b.bounties.map((x: any) => x.id) },
  },
  Challenge: {
    model: 'Challenge',
    need: 'any',
    everyAccount: true,
    own: { query: '{ communityChallenge { ... on QueryCommunityChallengeSuccess { data { challenge { databaseId } } } } }', pick: (d) => d.communityChallenge?.data?.challenge?.databaseId },
    rest: { path: () => '/api/community/challenge', list: (b) => (b.challenge ? [b.challenge.id] : []) },
  },
};

function expected(row: Row, kind: KeyKind): Outcome {
  const { need } = row;
  if (kind === 'revoked' || kind === 'expired') return 'unauthenticated';
  if (kind === 'other account') return row.everyAccount ? 'row' : 'nothing';
  if (kind === 'master' || need === 'any') return 'row';
  return need === 'master' || `sub:${need}` !== kind ? 'forbidden' : 'row';
}

function ruleOf(need: Need): KeyRule {
  return need === 'master' ? MASTER_KEY : need === 'any' ? ANY_KEY : SCOPE[need];
}

const globalId = (type: string, id: number) => Buffer.from(`${type}:${id}`).toString('base64');

let t: TestApp;
let fixture: Fixture;
const keys = {} as Record<KeyKind, string>;

beforeAll(async () => {
  t = await startTestApp();
  const owner = await t.createAccount('matrix-owner');
  const other = await t.createAccount('matrix-other');
  const prisma = t.app.services.db.prisma;
  const sub = async (scopes: string) => {
    const res = await t.request('POST', '/api/platform/sub-keys', { key: owner.key, body: { scopes, credit_limit: 100_000 } });
    expect(res.status, res.text).toBe(201);
    return res.body as { sub_key: string; id: number; prefix: string };
  };
  keys.master = owner.key;
  for (const scope of ['scrape', 'generate', 'search', 'media'] as const) keys[`sub:${scope}`] = (await sub(scope)).sub_key;
  const revoked = await sub('scrape,generate,search,media');
  await t.request('POST', `/api/platform/sub-keys/${revoked.prefix}/revoke`, { key: owner.key });
  keys.revoked = revoked.sub_key;
  const expired = await sub('scrape,generate,search,media');
  await prisma.apiKey.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
  keys.expired = expired.sub_key;
  keys['other account'] = other.key;

  // The rows: through the API where that is quick, else written as the workers would write them.
  const ids: Record<string, number> = { Account: owner.id };
  const filename = 'photo.jpg';
  const job = await prisma.job.create({ data: { accountId: owner.id, kind: 'scrape', input: {}, state: 'completed', finishedAt: new Date() } });
  const image = await photo('#204060');
  await t.app.services.blobs.put(`jobs/${job.id}/${filename}`, image, { contentType: 'image/jpeg' });
  const asset = await prisma.asset.create({
    data: { jobId: job.id, filename, url: 'https://example.org/photo.jpg', type: 'image', contentType: 'image/jpeg', size: image.length, sha256: 'a'.repeat(64), storageKey: `jobs/${job.id}/${filename}` },
  });
  const schedule = await prisma.schedule.create({ data: { accountId: owner.id, name: 'weekly', url: 'https://example.org/' } });
  const webhook = await prisma.webhook.create({ data: { accountId: owner.id, url: 'https://example.org/hook', events: [] } });
  const delivery = await prisma.webhookDelivery.create({ data: { deliveryId: crypto.randomUUID(), webhookId: webhook.id, event: 'webhook.test', body: '{}' } });
  const upload = await t.request('POST', '/api/media/upload', { key: owner.key, form: form({ body: image, name: 'a.jpg', type: 'image/jpeg' }) });
  const folder = await t.request('POST', '/api/media/folders', { key: owner.key, body: { name: 'matrix' } });
  const collection = await t.request('POST', '/api/media/collections', { key: owner.key, body: { name: 'matrix' } });
  const list = await t.request('POST', '/api/media/stock/lists', { key: owner.key, body: { name: 'matrix' } });
  const unlisted = await t.request('POST', '/api/community/contribute', { key: owner.key, form: form({ body: await scene(7001), name: 'c.jpg', type: 'image/jpeg' }, { public: 'false' }) });
  const third = await t.createAccount('matrix-third');
  const claimed = await t.request('POST', '/api/community/contribute', { key: third.key, form: form({ body: await scene(7002), name: 'c.jpg', type: 'image/jpeg' }) });
  const claim = await t.request('POST', `/api/community/${claimed.body.id}/claim`, { key: owner.key, body: { kind: 'removal', reason: 'matrix' } });
  expect(claim.status, claim.text).toBe(201);
  const proposal = await t.request('POST', `/api/wiki/image/${claimed.body.id}/intel`, { key: owner.key, body: { changes: { caption: 'matrix' } } });
  expect(proposal.status, proposal.text).toBe(201);
  // Wiki: the owner's subject with a verified photo, then rejected by review (statuses written
  // directly: review moves pending subjects only, and votes would take three more accounts).
  const subject = await t.request('POST', '/api/wiki/subjects', { key: owner.key, body: { name: 'Matrix Tower', category: 'matrix' } });
  expect(subject.status, subject.text).toBe(201);
  await prisma.wikiSubject.update({ where: { id: subject.body.id }, data: { status: 'approved' } });
  const wikiPhoto = await t.request('POST', `/api/wiki/subjects/${subject.body.slug}/contribute`, { key: owner.key, form: form({ body: await scene(7003), name: 'w.jpg', type: 'image/jpeg' }) });
  expect(wikiPhoto.status, wikiPhoto.text).toBe(201);
  const challenge = await t.request('POST', '/api/admin/challenges', { admin: true, body: { title: 'Matrix week', category: 'matrix', ends_at: new Date(Date.now() + 86_400_000).toISOString() } });
  expect(challenge.status, challenge.text).toBe(201);
  await prisma.wikiMedia.update({ where: { id: wikiPhoto.body.photo.id }, data: { status: 'verified', confidence: 1, decidedAt: new Date() } });
  await prisma.wikiSubject.update({ where: { id: subject.body.id }, data: { status: 'rejected' } });
  const bounty = await prisma.bounty.create({ data: { accountId: owner.id, subjectSlug: 'matrix', subjectName: 'matrix', rewardPerPhoto: 1n, photosNeeded: 1, expiresAt: new Date(Date.now() + 86_400_000) } });
  const subKeyId = (await prisma.apiKey.findFirstOrThrow({ where: { accountId: owner.id, kind: 'sub' }, orderBy: { id: 'asc' } })).id;
  Object.assign(ids, {
    SubKey: subKeyId,
    Job: job.id,
    Asset: asset.id,
    Schedule: schedule.id,
    Webhook: webhook.id,
    WebhookDelivery: delivery.id,
    Media: upload.body.media_id,
    Folder: folder.body.folder.id,
    Collection: collection.body.collection_id,
    StockList: list.body.list_id,
    CommunityItem: unlisted.body.id,
    OwnershipClaim: claim.body.id,
    ClaimedItem: claimed.body.id,
    IntelPost: proposal.body.id,
    WikiSubject: subject.body.id,
    WikiPhoto: wikiPhoto.body.photo.id,
    Bounty: bounty.id,
    Challenge: challenge.body.id,
  });
  for (const [type, id] of Object.entries(ids)) expect(typeof id, `fixture ${type}`).toBe('number');
  fixture = { ownerKey: owner.key, accountId: owner.id, ids, filename, slug: subject.body.slug };
}, 120_000);
afterAll(() => t.stop());

function nodeTypes(): string[] {
  return Object.values(schema.getTypeMap())
    .filter((type) => isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node'))
    .map((type) => type.name)
    .sort();
}

/** The outcome a GraphQL answer shows for one field (`pick` reads the row's id from data). */
function graphqlOutcome(res: TestResponse, found: (data: any) => boolean): Outcome | string {
  if (res.status === 401) return 'unauthenticated';
  const errors: any[] = res.body?.errors ?? [];
  if (errors.some((e) => e.extensions?.status === 403 || e.extensions?.code === 'FORBIDDEN')) return 'forbidden';
  if (errors.some((e) => e.extensions?.status === 404 || e.extensions?.code === 'NOT_FOUND')) return 'nothing';
  if (errors.length > 0) return `unexpected: ${JSON.stringify(errors)}`;
  return res.body.data && found(res.body.data) ? 'row' : 'nothing';
}

function restOutcome(res: TestResponse, list: ((body: any) => number[]) | undefined, id: number): Outcome | string {
  if (res.status === 401) return 'unauthenticated';
  if (res.status === 403) return 'forbidden';
  if (res.status === 404) return 'nothing';
  if (res.status !== 200) return `unexpected ${res.status}: ${res.text.slice(0, 200)}`;
  if (!list) return 'row';
  return list(res.body).includes(id) ? 'row' : 'nothing';
}

describe('access matrix', () => {
  it('has a row for every Node type of the schema, and each row the key rule of its access policy', () => {
    expect(Object.keys(ROWS).sort()).toEqual(nodeTypes());
    const policies = accessPolicies();
    for (const [type, row] of Object.entries({ ...ROWS, ...OTHER_ROWS })) {
      expect(policies.get(row.model)?.key, `${type}: policy of ${row.model}`).toEqual(ruleOf(row.need));
    }
  });

  for (const [type, row] of Object.entries({ ...ROWS, ...OTHER_ROWS })) {
    const isNode = type in ROWS;
    const ways = [isNode && 'node, nodes', row.own && 'its query', row.connection && 'its connection', row.rest && 'REST'].filter(Boolean).join(', ');
    describe(type, () => {
      for (const kind of KEY_KINDS) {
        const want = expected(row, kind);
        it(`${kind}: ${want} through ${ways}`, async () => {
          const id = fixture.ids[type]!;
          const key = keys[kind];
          if (isNode) {
            const gid = globalId(type, id);
            const node = await t.graphql('query($id: ID!) { node(id: $id) { id } }', { id: gid }, { key });
            expect(graphqlOutcome(node, (d) => d.node?.id === gid), 'node').toBe(want);
            const nodes = await t.graphql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: [gid] }, { key });
            expect(graphqlOutcome(nodes, (d) => d.nodes?.[0]?.id === gid), 'nodes').toBe(want);
          }
          if (row.own) {
            const own = await t.graphql(row.own.query, { id, job: fixture.ids.Job, webhook: fixture.ids.Webhook, slug: fixture.slug }, { key });
            expect(graphqlOutcome(own, (d) => row.own!.pick(d) === id), 'own query').toBe(want);
          }
          if (row.connection) {
            const listed = await t.graphql(row.connection.query, undefined, { key });
            expect(graphqlOutcome(listed, (d) => row.connection!.pick(d).includes(id)), 'connection').toBe(want);
          }
          if (row.rest) {
            const res = await t.request('GET', row.rest.path(fixture), { key });
            expect(restOutcome(res, row.rest.list, id), `GET ${row.rest.path(fixture)}`).toBe(want);
          }
        });
      }
    });
  }

  it('refuses malformed global ids with a 400, never a 500', async () => {
    for (const id of ['', 'not-base64!', Buffer.from('Media:abc').toString('base64'), Buffer.from('Media:99999999999999999999').toString('base64'), Buffer.from('Nope:1').toString('base64')]) {
      const res = await t.graphql('query($id: ID!) { node(id: $id) { id } }', { id }, { key: fixture.ownerKey });
      expect(res.status, id).toBeLessThan(500);
      expect(JSON.stringify(res.body.errors ?? []), id).not.toMatch(/INTERNAL_SERVER_ERROR|Unexpected error/);
    }
  });
});
