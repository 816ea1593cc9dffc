// Contract test over the REST route table: every documented route has a row here, and for each the
// method and path answer, auth and scopes are enforced, and the envelope and status are as documented.
// Each valid call and its answer are also checked against the served OpenAPI document (GET
// /openapi.json, made from the rows' zod schemas): the call fits the documented request, the answer
// fits the documented response (no field missing, none undocumented, in the documented order), and
// failures fit the documented error envelope. So the document cannot drift from what the service answers.
// A later feature adds its routes to rest-shim/routes.ts and its rows to `cases` below.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { match } from 'path-to-regexp';
import { routes } from '../../rest-shim/routes.js';
import type { AnyRoute } from '../../rest-shim/route.js';
import { keyRuleName } from '../../src/modules/access/index.js';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { form, photo, scene } from '../helpers/images.js';
import { smallTextImageBase64 } from '../fixtures/vision/images.js';
import { openApiChecker } from '../helpers/openapi.js';
import { loadConfig } from '../../src/config.js';
import { fakeGenerationConfig, startFakeGenerationProviders, type FakeGenerationProviders } from '../fixtures/generation/fake-providers.js';
import { testTelegramConfig } from '../fixtures/telegram/fake-bot-api.js';

interface Call {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  form?: FormData;
  /** application/x-www-form-urlencoded fields (the gallery's password form). */
  urlencoded?: Record<string, string>;
}

/** Path parameters and query of a URL the service answered (signed file URLs). */
function fromUrl(route: string, answered: string): Call {
  const parsed = new URL(answered, 'http://x');
  const found = match<Record<string, string>>(route)(parsed.pathname);
  if (!found) throw new Error(`${answered} is not a URL of ${route}`);
  return { params: found.params, query: Object.fromEntries(parsed.searchParams) };
}

/** What a shared collection's gallery needs: its token (password-protected when a password is given). */
async function sharedGallery(ctx: { t: TestApp; key: string }, password?: string): Promise<string> {
  const id = await collection(ctx);
  const share = await ctx.t.request('POST', `/api/media/collections/${id}/share`, { key: ctx.key, body: password ? { password } : {} });
  return share.body.share_token as string;
}

/** A community item contributed by the caller (or, with `by`, by another account). */
async function communityItem({ t, key }: { t: TestApp; key: string }, by?: string): Promise<number> {
  const giver = by ? (await t.createAccount('contract-giver')).key : key;
  const res = await t.request('POST', '/api/community/contribute', { key: giver, form: form({ body: await scene(9201 + ++unique), name: 'c.jpg', type: 'image/jpeg' }) });
  return res.body.id as number;
}

/** A pending ownership claim by the caller on another account's item. */
async function ownershipClaim(ctx: { t: TestApp; key: string }): Promise<number> {
  const item = await communityItem(ctx, 'someone else');
  return (await ctx.t.request('POST', `/api/community/${item}/claim`, { key: ctx.key, body: { kind: 'removal', reason: 'contract' } })).body.id as number;
}

/** A pending intel proposal by another account on an item of the caller's (whose owner resolves it). */
async function intelProposal(ctx: { t: TestApp; key: string }): Promise<number> {
  const item = await communityItem(ctx);
  const proposer = (await ctx.t.createAccount('contract-proposer')).key;
  return (await ctx.t.request('POST', `/api/wiki/image/${item}/intel`, { key: proposer, body: { text: 'contract', changes: { caption: 'contract caption' } } })).body.id as number;
}

/** Coins for the account behind a key, from the grants account. */
async function coinsFor({ t }: { t: TestApp }, key: string, coins: number): Promise<void> {
  const actor = await t.app.services.auth.authenticate(key);
  await t.app.services.ledger.transfer({ id: `contract:${actor.accountId}:${++unique}`, currency: 'coins', from: { system: 'grants' }, to: { account: actor.accountId }, amount: coins * 10_000, action: 'grant' });
}

/** An open bounty for the subject contract-subject, posted by `by` (default: another account). */
async function postedBounty(ctx: { t: TestApp; key: string }, by?: string): Promise<number> {
  const poster = by ?? (await ctx.t.createAccount('contract-poster')).key;
  await coinsFor(ctx, poster, 3);
  const res = await ctx.t.request('POST', '/api/economy/bounties', { key: poster, body: { subject_slug: 'contract-subject', reward_per_photo: 1, photos_needed: 3 } });
  return res.body.id as number;
}

/** A wiki subject proposed by another account: approved by the operator unless `approved` is false. */
async function wikiSubject({ t }: { t: TestApp }, approved = true): Promise<string> {
  const creator = await t.createAccount('contract-wiki');
  const made = await t.request('POST', '/api/wiki/subjects', { key: creator.key, body: { name: `Contract Subject ${++unique}`, category: 'landmark' } });
  if (approved) await t.request('POST', `/api/admin/wiki/subjects/${made.body.slug}/approve`, { admin: true });
  return made.body.slug as string;
}

/** A pending wiki photo by another account. */
async function wikiPhoto(ctx: { t: TestApp; key: string }): Promise<number> {
  const slug = await wikiSubject(ctx);
  const photographer = await ctx.t.createAccount('contract-photographer');
  const res = await ctx.t.request('POST', `/api/wiki/subjects/${slug}/contribute`, { key: photographer.key, form: form({ body: await scene(9401 + ++unique), name: 'w.jpg', type: 'image/jpeg' }) });
  return res.body.photo.id as number;
}

/** Ends every active or scheduled challenge (one runs at a time), so that a new one can open now. */
async function noChallenge({ t }: { t: TestApp }): Promise<void> {
  for (const status of ['active', 'scheduled']) {
    const listed = await t.request('GET', `/api/admin/challenges?status=${status}`, { admin: true });
    for (const c of listed.body.challenges as Array<{ id: number }>) await t.request('POST', `/api/admin/challenges/${c.id}/end`, { admin: true });
  }
}

/** A challenge running now over a fresh approved subject with a pending photo by another account. */
async function activeChallenge(ctx: { t: TestApp; key: string }): Promise<{ id: number; photo: number }> {
  const slug = await wikiSubject(ctx);
  const photographer = await ctx.t.createAccount('contract-photographer');
  const photo = await ctx.t.request('POST', `/api/wiki/subjects/${slug}/contribute`, { key: photographer.key, form: form({ body: await scene(9501 + ++unique), name: 'w.jpg', type: 'image/jpeg' }) });
  await noChallenge(ctx);
  const opened = await ctx.t.request('POST', '/api/admin/challenges', { admin: true, body: { title: 'Contract challenge', subjects: [slug], ends_at: new Date(Date.now() + 3_600_000).toISOString() } });
  return { id: opened.body.id as number, photo: photo.body.photo.id as number };
}

interface ContractCase {
  /** Builds a valid call; may create what the call needs. `key` is a fresh account's master key. */
  call: (ctx: { t: TestApp; key: string; handle: string }) => Promise<Call> | Call;
  status: number;
  /** Documented fields that must follow `success`, in this order. */
  fields?: string[];
  /** Binary answers (files, archives): their type instead of the JSON envelope. */
  contentType?: RegExp;
}

const freshSubKeyPrefix = async ({ t, key }: { t: TestApp; key: string }) =>
  (await t.request('POST', '/api/platform/sub-keys', { key, body: {} })).body.prefix as string;

/** A completed scrape of the fixture site's smallest page, made with the given key. */
async function completedJob({ t, key }: { t: TestApp; key: string }) {
  const started = await t.request('POST', '/api/scrape', { key, body: { url: `${site.url}/gallery/3` } });
  const done = await waitForJob(t, key, started.body.job_id);
  return { jobId: String(started.body.job_id), filename: done.body.assets.items[0].filename as string };
}

/** A collection of the given account. */
async function collection({ t, key }: { t: TestApp; key: string }): Promise<string> {
  return String((await t.request('POST', '/api/media/collections', { key, body: { name: `collection ${++unique}` } })).body.collection_id);
}

/** A stock list of the given account, with items at these URLs. */
async function stockList({ t, key }: { t: TestApp; key: string }, urls: string[] = []): Promise<string> {
  const id = (await t.request('POST', '/api/media/stock/lists', { key, body: { name: `list ${++unique}` } })).body.list_id as number;
  if (urls.length) await t.request('POST', `/api/media/stock/lists/${id}/items`, { key, body: { items: urls.map((url) => ({ url })) } });
  return String(id);
}

/** A media item of the given account, uploaded as the API does it. */
async function mediaItem({ t, key }: { t: TestApp; key: string }, trashed = false): Promise<string> {
  const uploaded = await t.request('POST', '/api/media/upload', { key, form: form({ body: await photo('#336699', { seed: ++unique }), name: 'p.jpg', type: 'image/jpeg' }) });
  const id = String(uploaded.body.media_id);
  if (trashed) await t.request('DELETE', `/api/media/${id}`, { key });
  return id;
}

/** Coins for the account of `handle` (the operator's grant). */
async function coins({ t, handle }: { t: TestApp; handle: string }, amount: number): Promise<void> {
  await t.request('POST', `/api/admin/accounts/${handle}/coins`, { admin: true, body: { amount } });
}

/** API credits for the account of `handle` (the operator's grant); adds nothing to the call. */
async function credits({ t, handle }: { t: TestApp; handle: string }, amount: number): Promise<Record<string, never>> {
  await t.request('POST', `/api/admin/accounts/${handle}/credits`, { admin: true, body: { amount } });
  return {};
}

async function folder({ t, key }: { t: TestApp; key: string }): Promise<string> {
  return String((await t.request('POST', '/api/media/folders', { key, body: { name: `folder ${++unique}` } })).body.folder.id);
}

/** Shopify export jobs of the rows talk to nothing that answers (never to a real shop). */
const CONTRACT_EXPORTS = { ...loadConfig({}).exports, shopify: { ...loadConfig({}).exports.shopify, apiBaseUrl: 'https://127.0.0.1:1' } };

let unique = 0;
const cases: Record<string, ContractCase> = {
  'POST /api/media/upload': {
    call: async () => ({ form: form({ body: await photo('#993366', { seed: ++unique }), name: 'c.jpg', type: 'image/jpeg' }, { tags: '["x"]' }) }),
    status: 201,
    fields: ['media_id', 'url', 'tags'],
  },
  'GET /api/media/list': { call: () => ({ query: { limit: '10' } }), status: 200, fields: ['items', 'total', 'limit', 'offset'] },
  'GET /api/media/search': { call: () => ({ query: { q: 'sunset', color: '#ff8800' } }), status: 200, fields: ['query', 'items', 'total'] },
  'GET /api/media/trash': { call: () => ({}), status: 200, fields: ['items', 'total'] },
  'POST /api/media/bulk': { call: async (ctx) => ({ body: { ids: [Number(await mediaItem(ctx))], action: 'tag', tags: ['bulk'] } }), status: 200, fields: ['action', 'count', 'items'] },
  'GET /api/media/credits': { call: () => ({}), status: 200, fields: ['balance', 'held', 'total_added', 'total_spent', 'entries'] },
  // The mirror is checked: the fixture site serves the uploaded photo under a second name.
  'POST /api/media/mirror': {
    call: async ({ t, key }) => {
      const uploaded = await t.request('POST', '/api/media/upload', { key, form: form({ body: site.images.get('/img/hero.jpg')!, name: 'hero.jpg', type: 'image/jpeg' }) });
      return { body: { media_id: uploaded.body.media_id as number, url: `${site.url}/img/copy-of-hero.jpg` } };
    },
    status: 200,
    fields: ['mirrors'],
  },
  'GET /api/media/folders': { call: () => ({}), status: 200, fields: ['folders'] },
  'POST /api/media/folders': { call: () => ({ body: { name: `contract folder ${++unique}` } }), status: 201, fields: ['folder'] },
  'PATCH /api/media/folders/:id': { call: async (ctx) => ({ params: { id: await folder(ctx) }, body: { name: `renamed ${++unique}` } }), status: 200, fields: ['folder'] },
  'DELETE /api/media/folders/:id': { call: async (ctx) => ({ params: { id: await folder(ctx) } }), status: 200, fields: ['deleted', 'folder_id'] },
  'GET /api/media/:id': { call: async (ctx) => ({ params: { id: await mediaItem(ctx) } }), status: 200, fields: ['media'] },
  'PATCH /api/media/:id': { call: async (ctx) => ({ params: { id: await mediaItem(ctx) }, body: { name: 'renamed' } }), status: 200, fields: ['media'] },
  'DELETE /api/media/:id': { call: async (ctx) => ({ params: { id: await mediaItem(ctx) } }), status: 200, fields: ['media_id', 'trashed'] },
  'PATCH /api/media/:id/tags': { call: async (ctx) => ({ params: { id: await mediaItem(ctx) }, body: { action: 'add', tags: ['t'] } }), status: 200, fields: ['media_id', 'tags'] },
  'POST /api/media/:id/restore': { call: async (ctx) => ({ params: { id: await mediaItem(ctx, true) } }), status: 200, fields: ['media'] },
  'DELETE /api/media/:id/purge': { call: async (ctx) => ({ params: { id: await mediaItem(ctx, true) } }), status: 200, fields: ['media_id', 'purged'] },
  // Collections and stock lists (test/collections/ and test/stock-lists/ go deeper).
  'GET /api/media/collections': { call: () => ({}), status: 200, fields: ['collections', 'total', 'next_cursor'] },
  'POST /api/media/collections': { call: () => ({ body: { name: 'contract', description: 'rows' } }), status: 201, fields: ['collection_id', 'name', 'description', 'item_count', 'shared'] },
  'GET /api/media/collections/:id': { call: async (ctx) => ({ params: { id: await collection(ctx) } }), status: 200, fields: ['collection_id', 'name'] },
  'POST /api/media/collections/:id/items': {
    call: async (ctx) => ({ params: { id: await collection(ctx) }, body: { media_ids: [Number(await mediaItem(ctx))] } }),
    status: 200,
    fields: ['collection_id', 'added', 'already_in', 'item_count'],
  },
  'DELETE /api/media/collections/:id': { call: async (ctx) => ({ params: { id: await collection(ctx) } }), status: 200, fields: ['deleted', 'collection_id'] },
  'POST /api/media/collections/:id/share': { call: async (ctx) => ({ params: { id: await collection(ctx) }, body: { public: false, password: 'contract pw' } }), status: 200, fields: ['share_token', 'share_url'] },
  'GET /api/media/stock/lists': { call: () => ({}), status: 200, fields: ['lists', 'total', 'next_cursor'] },
  'POST /api/media/stock/lists': { call: () => ({ body: { name: 'contract list' } }), status: 201, fields: ['list_id', 'name', 'description'] },
  'GET /api/media/stock/lists/:id': { call: async (ctx) => ({ params: { id: await stockList(ctx) } }), status: 200, fields: ['list_id', 'name'] },
  'DELETE /api/media/stock/lists/:id': { call: async (ctx) => ({ params: { id: await stockList(ctx) } }), status: 200, fields: ['deleted', 'list_id'] },
  'POST /api/media/stock/lists/:id/items': {
    call: async (ctx) => ({ params: { id: await stockList(ctx) }, body: { items: [{ url: `${site.url}/img/page1.png`, title: 'Page one', attribution: 'fixture' }] } }),
    status: 200,
    fields: ['list_id', 'added', 'already_in', 'item_count', 'items'],
  },
  'POST /api/media/stock/lists/:id/save': {
    call: async (ctx) => ({ params: { id: await stockList(ctx, [`${site.url}/img/page2.png`]) } }),
    status: 200,
    fields: ['list_id', 'saved', 'duplicates', 'failed', 'already_saved', 'remaining', 'results'],
  },
  'DELETE /api/media/stock/items/:id': {
    call: async (ctx) => {
      const list = await stockList(ctx);
      const added = await ctx.t.request('POST', `/api/media/stock/lists/${list}/items`, { key: ctx.key, body: { items: [{ url: `${site.url}/img/page3.png` }] } });
      return { params: { id: String(added.body.items[0].id) } };
    },
    status: 200,
    fields: ['deleted', 'item_id', 'list_id'],
  },
  'POST /api/community/lists/:id/share': { call: async (ctx) => ({ params: { id: await stockList(ctx) } }), status: 200, fields: ['share_token', 'join_path'] },
  'POST /api/community/lists/join/:token': {
    // Another account's shared list: the caller joins it.
    call: async ({ t }) => {
      const owner = await t.createAccount('contract-list-owner');
      const list = await stockList({ t, key: owner.key });
      return { params: { token: (await t.request('POST', `/api/community/lists/${list}/share`, { key: owner.key })).body.share_token } };
    },
    status: 200,
    fields: ['list_id', 'name', 'owner', 'role', 'joined_at'],
  },
  'GET /api/community/lists/:id/members': { call: async (ctx) => ({ params: { id: await stockList(ctx) } }), status: 200, fields: ['list_id', 'owner', 'members'] },
  'POST /api/scrape': {
    call: () => ({ body: { url: `${site.url}/gallery/3` } }),
    status: 202,
    fields: ['status', 'job_id', 'message', 'poll_url'],
  },
  'GET /api/jobs/:job_id': { call: async (ctx) => ({ params: { job_id: (await completedJob(ctx)).jobId } }), status: 200, fields: ['status', 'job_id', 'assets'] },
  'GET /files/:job_id/:filename': {
    call: async (ctx) => {
      const { jobId, filename } = await completedJob(ctx);
      return { params: { job_id: jobId, filename } };
    },
    status: 200,
    contentType: /^image\/png$/,
  },
  'GET /api/featured-image': { call: () => ({ query: { url: `${site.url}/` } }), status: 200, fields: ['url', 'score', 'source', 'page'] },
  // Pipelines (test/pipeline/ goes deeper): a filter step needs no scope, so any key runs it.
  'POST /api/pipeline': {
    call: () => ({ body: { steps: [{ name: 'pick', action: 'filter', params: { urls: [`${site.url}/img/page1.png`], min_width: 100 } }], stop_on_error: true } }),
    status: 200,
    fields: ['pipeline'],
  },
  'GET /api/pipeline/actions': { call: () => ({}), status: 200, fields: ['max_steps', 'deadline_ms', 'actions'] },
  // ReplaceFlow (test/replaceflow/ goes deeper: reverse search, the detector, the demo's limit).
  'POST /api/replaceflow': {
    call: () => ({ body: { article_url: `${site.url}/`, max_results: 2, phash: true } }),
    status: 200,
    fields: ['headline', 'source_domain', 'watermarked_url', 'phash_enabled', 'count', 'results', 'searched'],
  },
  'POST /api/replaceflow/demo': {
    call: () => ({ body: { article_url: `${site.url}/` } }),
    status: 200,
    fields: ['headline', 'source_domain', 'watermarked_url', 'phash_enabled', 'count', 'results', 'searched'],
  },
  'GET /download/:job_id': { call: async (ctx) => ({ params: { job_id: (await completedJob(ctx)).jobId } }), status: 200, contentType: /^application\/zip$/ },
  // Ours: the chat bot's one-time link code (test/bot/ goes deeper).
  'POST /api/platform/bot-link': { call: () => ({}), status: 201, fields: ['code', 'command', 'link', 'expires_at', 'expires_in_seconds'] },
  'POST /api/platform/sub-keys': {
    call: () => ({ body: { label: 'contract', credit_limit: 5, scopes: 'search' } }),
    status: 201,
    fields: ['sub_key', 'label', 'credit_limit', 'scopes', 'expires_at'],
  },
  'GET /api/platform/sub-keys': { call: () => ({}), status: 200, fields: ['sub_keys'] },
  'POST /api/platform/sub-keys/:key/revoke': { call: async (ctx) => ({ params: { key: await freshSubKeyPrefix(ctx) } }), status: 200 },
  'GET /api/live-editor/status': { call: () => ({}), status: 200, fields: ['available', 'message', 'features'] },
  'GET /api/search-links': { call: () => ({ query: { query: 'red fox' } }), status: 200, fields: ['query', 'links'] },
  // The unified search (test/search/ goes deeper): no key needed.
  'POST /api/images/search': { call: () => ({ body: { query: 'red fox', limit: 5, orientation: 'landscape' } }), status: 200, fields: ['data'] },
  'POST /api/automation/webhooks': {
    call: () => ({ body: { url: 'https://hooks.example.com/contract', secret: 'contract-secret', events: ['job.completed'] } }),
    status: 201,
    fields: ['webhook_id', 'url', 'events', 'has_secret'],
  },
  'GET /api/automation/webhooks': { call: () => ({}), status: 200, fields: ['webhooks', 'total'] },
  'DELETE /api/automation/webhooks/:id': {
    call: async ({ t, key }) => ({ params: { id: String((await t.request('POST', '/api/automation/webhooks', { key, body: { url: 'https://hooks.example.com/x' } })).body.webhook_id) } }),
    status: 200,
    fields: ['deleted', 'webhook_id'],
  },
  // Nothing listens on port 1: the answer reports the failed delivery (still a 200).
  'POST /api/automation/webhooks/test': { call: () => ({ body: { url: 'https://127.0.0.1:1/hook' } }), status: 200, fields: ['delivered', 'status_code', 'error'] },
  'GET /api/automation/webhooks/:id/deliveries': {
    call: async ({ t, key }) => ({ params: { id: String((await t.request('POST', '/api/automation/webhooks', { key, body: { url: 'https://hooks.example.com/y' } })).body.webhook_id) } }),
    status: 200,
    fields: ['webhook_id', 'deliveries', 'total'],
  },
  // Exports (test/automation/exports-*.test.ts go deeper): the jobs they start fail in the background.
  'POST /api/automation/export/wordpress': {
    call: async (ctx) => ({ body: { wp_url: 'https://127.0.0.1:1/blog', wp_user: 'editor', wp_password: 'abcd efgh ijkl mnop', media_ids: [Number(await mediaItem(ctx))] } }),
    status: 202,
    fields: ['status', 'job_id', 'message', 'poll_url'],
  },
  'POST /api/automation/export/shopify': {
    call: async (ctx) => ({ body: { shop: 'contract-shop.myshopify.com', access_token: 'shpat_contract', media_ids: [Number(await mediaItem(ctx))], product_id: 42 } }),
    status: 202,
    fields: ['status', 'job_id', 'message', 'poll_url'],
  },
  'POST /api/automation/schedules': {
    call: () => ({ body: { url: `${site.url}/gallery/3`, name: 'contract', schedule: 'daily', hour: 6 } }),
    status: 201,
    fields: ['schedule_id', 'next_run'],
  },
  'GET /api/automation/schedules': { call: () => ({}), status: 200, fields: ['schedules', 'total'] },
  'DELETE /api/automation/schedules/:id': {
    call: async ({ t, key }) => ({ params: { id: String((await t.request('POST', '/api/automation/schedules', { key, body: { url: `${site.url}/`, name: 'to delete' } })).body.schedule_id) } }),
    status: 200,
    fields: ['deleted', 'schedule_id'],
  },
  'POST /api/automation/schedules/:id/toggle': {
    call: async ({ t, key }) => ({ params: { id: String((await t.request('POST', '/api/automation/schedules', { key, body: { url: `${site.url}/`, name: 'to toggle' } })).body.schedule_id) } }),
    status: 200,
    fields: ['schedule_id', 'enabled', 'next_run'],
  },
  // Vision on the local provider with task ocr: a small image, so the rows stay fast.
  'POST /api/vision/analyze': {
    call: async () => ({ body: { image_data: await smallTextImageBase64(), task: 'ocr', provider: 'local' } }),
    status: 200,
    fields: ['data', 'timestamp'],
  },
  'POST /api/ocr': { call: async () => ({ body: { image_data: await smallTextImageBase64() } }), status: 200, fields: ['text', 'confidence', 'provider_used', 'timestamp'] },
  // Transformation URLs and watermarks (test/imaging/ go deeper).
  'POST /api/media/:id/optimize': {
    call: async ({ t, key }) => {
      const actor = await t.app.services.auth.authenticate(key);
      const { media } = await t.app.services.media.ingest(actor, { body: site.images.get('/img/small-1x.png')!, filename: 'optimize.png' });
      return { params: { id: String(media.id) }, body: { width: 100, quality: 'auto', format: 'webp' } };
    },
    status: 200,
    fields: ['url', 'width', 'quality', 'format', 'media_id'],
  },
  'GET /api/watermark': {
    call: () => ({ query: { image: `${site.url}/img/hero.jpg`, watermark: `${site.url}/img/small-1x.png` } }),
    status: 200,
    fields: ['url', 'position', 'opacity'],
  },
  'POST /api/watermark': {
    call: () => ({ body: { image: `${site.url}/img/hero.jpg`, watermark: `${site.url}/img/small-1x.png`, position: 'bottom-right', opacity: 50 } }),
    status: 200,
    fields: ['url', 'position', 'opacity'],
  },
  'POST /api/admin/accounts': { call: () => ({ body: { handle: `made-by-contract-${++unique}` } }), status: 201, fields: ['account_id', 'handle'] },
  'GET /api/admin/accounts/:handle': { call: ({ handle }) => ({ params: { handle } }), status: 200 },
  'POST /api/admin/accounts/:handle/suspend': { call: ({ handle }) => ({ params: { handle } }), status: 200 },
  'POST /api/admin/accounts/:handle/activate': { call: ({ handle }) => ({ params: { handle } }), status: 200 },
  'POST /api/admin/accounts/:handle/deactivate': { call: ({ handle }) => ({ params: { handle } }), status: 200 },
  'POST /api/admin/accounts/:handle/tier': { call: ({ handle }) => ({ params: { handle }, body: { tier: 'standard' } }), status: 200 },
  'POST /api/admin/accounts/:handle/rotate-key': { call: ({ handle }) => ({ params: { handle } }), status: 200, fields: ['account_id', 'handle'] },
  // Routes served by their own routers (no key): signed file URLs, the gallery, health and the API document.
  'GET /media/:id/:variant': {
    call: async (ctx) => fromUrl('/media/:id/:variant', (await ctx.t.request('GET', `/api/media/${await mediaItem(ctx)}`, { key: ctx.key })).body.media.url),
    status: 200,
    contentType: /^image\/jpeg$/,
  },
  'GET /media/:id/t/:variant': {
    call: async (ctx) => {
      const optimized = await ctx.t.request('POST', `/api/media/${await mediaItem(ctx)}/optimize`, { key: ctx.key, body: { width: 50, format: 'png' } });
      return fromUrl('/media/:id/t/:variant', optimized.body.url);
    },
    status: 200,
    contentType: /^image\/png$/,
  },
  'GET /watermarks/:account/:file': {
    call: async ({ t, key }) => {
      const made = await t.request('POST', '/api/watermark', { key, body: { image: `${site.url}/img/hero.jpg`, watermark: `${site.url}/img/small-1x.png` } });
      return fromUrl('/watermarks/:account/:file', made.body.url);
    },
    status: 200,
    contentType: /^image\/jpeg$/,
  },
  'GET /gallery/:token': { call: async (ctx) => ({ params: { token: await sharedGallery(ctx) } }), status: 200, contentType: /^text\/html/ },
  'POST /gallery/:token': {
    call: async (ctx) => ({ params: { token: await sharedGallery(ctx, 'contract pw') }, urlencoded: { password: 'contract pw' } }),
    status: 303,
  },
  'GET /healthz': { call: () => ({}), status: 200, fields: ['status'] },
  'GET /readyz': { call: () => ({}), status: 200, fields: ['status', 'checks'] },
  'GET /metrics': { call: () => ({}), status: 200, contentType: /^text\/plain/ },
  'GET /openapi.json': { call: () => ({}), status: 200, contentType: /^application\/json/ },
  'GET /docs': { call: () => ({}), status: 200, contentType: /^text\/html/ },
  'POST /api/admin/accounts/:handle/credits': { call: ({ handle }) => ({ params: { handle }, body: { amount: 2.5, reference: 'contract' } }), status: 200, fields: ['account_id', 'handle', 'amount', 'balance', 'held', 'transfer_id', 'replayed'] },
  'GET /api/admin/rewards': { call: () => ({}), status: 200, fields: ['rates', 'daily_caps', 'updated_at'] },
  'PATCH /api/admin/rewards': { call: () => ({ body: { daily_caps: { bulk_mirror_match: 5000 } } }), status: 200, fields: ['rates', 'daily_caps', 'updated_at'] },
  // Economy: bridge, referral, styles, coin grants (test/economy/ goes deeper).
  'GET /api/economy/bridge/rate': { call: () => ({}), status: 200, fields: ['coins_per_credit', 'partner', 'linked', 'partner_account', 'minimum_coins'] },
  'POST /api/economy/bridge/convert': {
    call: async (ctx) => {
      await coins(ctx, 10);
      return { body: { coins: 5, idempotency_key: `contract-${++unique}` } };
    },
    status: 200,
    fields: ['coins_burned', 'credits_added', 'new_balance', 'held', 'conversion_id', 'status'],
  },
  'POST /api/economy/bridge/link': { call: () => ({ body: { partner_account: 'contract-partner-account' } }), status: 200, fields: ['partner', 'partner_account', 'linked_at'] },
  'GET /api/economy/bridge/conversions/:id': {
    call: async (ctx) => {
      await coins(ctx, 1);
      const made = await ctx.t.request('POST', '/api/economy/bridge/convert', { key: ctx.key, body: { coins: 1 } });
      return { params: { id: made.body.conversion_id as string } };
    },
    status: 200,
    fields: ['coins_burned', 'credits_added', 'new_balance', 'held', 'conversion_id', 'status'],
  },
  'GET /api/economy/referral': { call: () => ({}), status: 200, fields: ['referral_code', 'referral_url', 'total_referrals', 'commission_earned'] },
  'GET /api/economy/styles': { call: () => ({}), status: 200, fields: ['styles'] },
  'POST /api/economy/styles/:slug/unlock': {
    call: async (ctx) => {
      await coins(ctx, 20);
      return { params: { slug: 'noir' } };
    },
    status: 200,
    fields: ['slug', 'name', 'premium', 'price_coins', 'unlocked', 'charged', 'already_unlocked', 'new_balance', 'held'],
  },
  'POST /api/admin/accounts/:handle/coins': { call: ({ handle }) => ({ params: { handle }, body: { amount: 2.5, reference: 'contract', idempotency_key: `contract-${++unique}` } }), status: 200, fields: ['account_id', 'handle', 'amount', 'balance', 'held', 'transfer_id', 'replayed'] },
  // Community (test/community/ goes deeper).
  'GET /api/community/search': { call: () => ({ query: { limit: '5' } }), status: 200, fields: ['items', 'total', 'limit', 'offset'] },
  'POST /api/community/contribute': {
    call: async () => ({ form: form({ body: await scene(9001 + ++unique), name: 'c.jpg', type: 'image/jpeg' }, { tags: '["contract"]' }) }),
    status: 201,
    fields: ['id', 'url', 'coins_earned', 'balance', 'held', 'duplicate', 'message', 'item'],
  },
  'POST /api/community/ingest': {
    call: async () => ({ form: form({ body: await scene(9101 + ++unique), name: 'i.jpg', type: 'image/jpeg' }, { latitude: '1.5', longitude: '2.5', unlock_price: '1' }) }),
    status: 201,
    fields: ['intel_id', 'image_object_id', 'stored_url', 'coins_harvested', 'balance', 'ai_summary', 'ai_labels', 'attribution_handle', 'unlock_price', 'held', 'latitude', 'longitude', 'duplicate', 'message'],
  },
  'GET /api/community/my': { call: () => ({}), status: 200, fields: ['balance', 'contributions', 'total_contributed', 'held', 'limit', 'offset'] },
  'GET /api/community/leaderboard': { call: () => ({ query: { period: 'all' } }), status: 200, fields: ['period', 'since', 'entries'] },
  'GET /api/community/portfolio': { call: () => ({}), status: 200, fields: ['handle', 'attribution', 'member_since', 'contributions', 'verified', 'recent', 'private'] },
  'GET /api/community/portfolio/:code': { call: ({ handle }) => ({ params: { code: handle } }), status: 200, fields: ['handle', 'attribution', 'member_since', 'contributions', 'verified', 'recent', 'private'] },
  'GET /api/community/:id': { call: async (ctx) => ({ params: { id: String(await communityItem(ctx)) } }), status: 200 },
  'POST /api/community/:item_id/tag': {
    call: async (ctx) => ({ params: { item_id: String(await communityItem(ctx)) }, body: { tags: ['sea'], action: 'add' } }),
    status: 200,
    fields: ['coins_earned', 'verified', 'balance', 'held', 'matched', 'message', 'item'],
  },
  'POST /api/community/:id/unlock': {
    call: async (ctx) => ({ params: { id: String(await communityItem(ctx)) } }),
    status: 200,
    fields: ['item_id', 'charged', 'already_unlocked', 'uploader_earned', 'balance', 'held', 'original_url'],
  },
  'GET /api/community/:id/claim': { call: async (ctx) => ({ params: { id: String(await communityItem(ctx)) } }), status: 200, fields: ['claims'] },
  'POST /api/community/:id/claim': {
    call: async (ctx) => ({ params: { id: String(await communityItem(ctx, 'someone else')) }, body: { kind: 'royalty', royalty_coins: 0.5, reason: 'contract' } }),
    status: 201,
  },
  'GET /api/admin/claims': { call: () => ({ query: { status: 'pending' } }), status: 200, fields: ['claims', 'total', 'limit', 'offset'] },
  'POST /api/admin/claims/:id/approve': { call: async (ctx) => ({ params: { id: String(await ownershipClaim(ctx)) } }), status: 200 },
  'POST /api/admin/claims/:id/reject': { call: async (ctx) => ({ params: { id: String(await ownershipClaim(ctx)) } }), status: 200 },
  'GET /api/economy/bounties': { call: () => ({ query: { status: 'open' } }), status: 200, fields: ['bounties', 'total', 'limit', 'offset'] },
  'POST /api/economy/bounties': {
    call: async (ctx) => {
      await coinsFor(ctx, ctx.key, 5);
      return { body: { subject_name: 'Contract Tower', reward_per_photo: 1, photos_needed: 2 } };
    },
    status: 201,
  },
  'POST /api/economy/bounties/:bounty_id/claim': {
    call: async (ctx) => {
      const bounty = await postedBounty(ctx);
      const item = await communityItem(ctx);
      // The subject's tag confirmed by a vision label, as tagging records it (the claim's rule, subject-evidence.ts).
      const { accountId } = await ctx.t.app.services.db.prisma.communityItem.update({ where: { id: item }, data: { verified: true, tags: ['contract-subject'] } });
      await ctx.t.app.services.db.prisma.communityTagConfirmation.create({ data: { itemId: item, tag: 'contract-subject', key: 'contract-subject', evidence: 'label', matched: 'contract-subject', accountId } });
      return { params: { bounty_id: String(bounty) }, body: { crowdsource_id: item } };
    },
    status: 200,
    fields: ['bounty_id', 'crowdsource_id', 'paid', 'balance', 'held', 'bounty'],
  },
  'POST /api/economy/bounties/:id/cancel': {
    call: async (ctx) => ({ params: { id: String(await postedBounty(ctx, ctx.key)) } }),
    status: 200,
  },
  // Image intel (test/intel/ goes deeper).
  'POST /api/wiki/image/:id/intel': {
    call: async (ctx) => ({ params: { id: String(await communityItem(ctx, 'someone else')) }, body: { text: 'Seen from the pier', changes: { caption: 'The pier', tags: ['pier'], name: 'pier', latitude: 1.5, longitude: 2.5 } } }),
    status: 201,
    fields: ['id', 'kind', 'status', 'coins_earned', 'balance', 'held', 'message', 'post'],
  },
  'POST /api/wiki/image/intel/:id/resolve': {
    call: async (ctx) => ({ params: { id: String(await intelProposal(ctx)) }, body: { action: 'approve' } }),
    status: 200,
    fields: ['id', 'status', 'proposer_paid', 'message', 'post', 'item'],
  },
  'POST /api/wiki/image/:id/policy': { call: async (ctx) => ({ params: { id: String(await communityItem(ctx)) }, body: { policy: 'restricted' } }), status: 200, fields: ['item_id', 'policy'] },
  'GET /api/wiki/image/:id/intel': {
    call: async (ctx) => {
      const item = await communityItem(ctx);
      await ctx.t.request('POST', `/api/wiki/image/${item}/intel`, { key: ctx.key, body: { text: 'a note', changes: { caption: 'merged at once' } } });
      return { params: { id: String(item) }, query: { limit: '5' } };
    },
    status: 200,
    fields: ['item_id', 'policy', 'posts', 'total', 'limit', 'offset'],
  },
  'GET /api/wiki/image/:id/proposals': {
    call: async (ctx) => {
      const proposal = await intelProposal(ctx);
      const found = await ctx.t.app.services.db.prisma.intelPost.findUniqueOrThrow({ where: { id: proposal } });
      return { params: { id: String(found.itemId) }, query: { status: 'pending' } };
    },
    status: 200,
    fields: ['item_id', 'policy', 'proposals', 'total', 'limit', 'offset'],
  },
  // The wiki (test/wiki/ goes deeper).
  'GET /api/wiki/subjects': { call: () => ({ query: { sort: 'popular' } }), status: 200, fields: ['subjects', 'total', 'limit', 'offset'] },
  'POST /api/wiki/subjects': { call: () => ({ body: { name: `Contract Tower ${++unique}`, category: 'landmark' } }), status: 201 },
  'GET /api/wiki/subjects/:slug': { call: async (ctx) => ({ params: { slug: await wikiSubject(ctx) } }), status: 200 },
  'GET /api/wiki/verify-queue': { call: () => ({ query: { limit: '5' } }), status: 200, fields: ['items'] },
  'POST /api/wiki/subjects/:slug/contribute': {
    call: async (ctx) => ({ params: { slug: await wikiSubject(ctx) }, form: form({ body: await scene(9301 + ++unique), name: 'w.jpg', type: 'image/jpeg' }, { photo_type: 'exterior' }) }),
    status: 201,
    fields: ['duplicate', 'photo'],
  },
  'POST /api/wiki/metadata/:id/vote': {
    call: async (ctx) => ({ params: { id: String(await wikiPhoto(ctx)) }, body: { vote: 'confirm' } }),
    status: 200,
    fields: ['coins_earned', 'balance', 'held', 'decided', 'photo'],
  },
  'GET /api/wiki/subjects/:slug/query': {
    call: async (ctx) => {
      const actor = await ctx.t.app.services.auth.authenticate(ctx.key);
      await ctx.t.app.services.credits.grant(actor.accountId, { amount: 3 });
      return { params: { slug: await wikiSubject(ctx) }, query: { min_confidence: '0.5' } };
    },
    status: 200,
    fields: ['subject_slug', 'count', 'images', 'credits_charged', 'credits_balance'],
  },
  'POST /api/community/subjects/:slug/follow': { call: async (ctx) => ({ params: { slug: await wikiSubject(ctx) } }), status: 200, fields: ['subject_slug', 'following', 'unchanged'] },
  'DELETE /api/community/subjects/:slug/follow': { call: async (ctx) => ({ params: { slug: await wikiSubject(ctx) } }), status: 200, fields: ['subject_slug', 'following', 'unchanged'] },
  'GET /api/community/following': { call: () => ({ query: { limit: '10' } }), status: 200, fields: ['subjects', 'total', 'limit', 'offset'] },
  'GET /api/admin/wiki/subjects': { call: () => ({ query: { status: 'pending' } }), status: 200, fields: ['subjects', 'total', 'limit', 'offset'] },
  'POST /api/admin/wiki/subjects/:slug/approve': { call: async (ctx) => ({ params: { slug: await wikiSubject(ctx, false) } }), status: 200 },
  'POST /api/admin/wiki/subjects/:slug/reject': { call: async (ctx) => ({ params: { slug: await wikiSubject(ctx, false) } }), status: 200 },
  // Fact-checking challenges (test/challenges/ goes deeper).
  'GET /api/community/challenge': {
    call: async (ctx) => {
      await activeChallenge(ctx);
      return { query: { limit: '5' } };
    },
    status: 200,
    fields: ['challenge', 'coins_per_vote', 'items'],
  },
  'POST /api/community/challenge/vote/:id': {
    call: async (ctx) => ({ params: { id: String((await activeChallenge(ctx)).photo) }, body: { vote: 'confirm' } }),
    status: 200,
    fields: ['coins_earned', 'balance', 'held', 'decided', 'challenge_id', 'photo'],
  },
  'GET /api/admin/challenges': { call: () => ({ query: { status: 'ended', limit: '5' } }), status: 200, fields: ['challenges', 'total', 'limit', 'offset'] },
  'POST /api/admin/challenges': {
    call: async (ctx) => {
      const slug = await wikiSubject(ctx);
      await noChallenge(ctx);
      return { body: { title: 'Contract challenge', description: 'contract', subjects: [slug], starts_at: new Date().toISOString(), ends_at: new Date(Date.now() + 3_600_000).toISOString() } };
    },
    status: 201,
    fields: ['id', 'title', 'description', 'scope', 'category', 'subjects', 'starts_at', 'ends_at', 'ended_at', 'status', 'pending_photos', 'created_at'],
  },
  'POST /api/admin/challenges/:id/end': { call: async (ctx) => ({ params: { id: String((await activeChallenge(ctx)).id) } }), status: 200 },
  'GET /wiki/:kind/:id': {
    call: async (ctx) => {
      const photo = await ctx.t.app.services.db.prisma.wikiMedia.findUniqueOrThrow({ where: { id: await wikiPhoto(ctx) } });
      return fromUrl('/wiki/:kind/:id', ctx.t.app.services.wiki.fileUrl('photos', photo.id, photo.storageKey));
    },
    status: 200,
    contentType: /^image\/jpeg$/,
  },
  // Generation against the fake providers (test/generation/ goes deeper); the account gets the credits first.
  'POST /api/generate': { call: async (ctx) => ({ body: { prompt: 'contract harbour', count: 1, ...(await credits(ctx, 2)) } }), status: 200, fields: ['prompt', 'count', 'provider', 'images'] },
  'POST /api/replace/generate': { call: async (ctx) => ({ body: { description: 'contract harbour', count: 1, ...(await credits(ctx, 2)) } }), status: 202, fields: ['status', 'job_id', 'message', 'poll_url'] },
  'POST /api/replace/batch': {
    call: async (ctx) => ({ body: { descriptions: ['contract one', 'contract two'], style: 'minimalist', ...(await credits(ctx, 4)) } }),
    status: 200,
    fields: ['count', 'succeeded', 'failed', 'results', 'credits_charged'],
  },
  // Bulk mirror (test/mirrors/ goes deeper): the fixture site's images, matched or not.
  'POST /api/platform/bulk-mirror': { call: () => ({ body: { urls: [`${site.url}/img/hero.jpg`, `${site.url}/img/page1.png`] } }), status: 202, fields: ['job_id', 'total_urls', 'status'] },
  'GET /api/platform/bulk-mirror/:job_id': {
    call: async ({ t, key }) => {
      const started = await t.request('POST', '/api/platform/bulk-mirror', { key, body: { urls: [`${site.url}/img/page2.png`] } });
      return { params: { job_id: started.body.job_id as string }, query: { details: 'true' } };
    },
    status: 200,
    fields: ['status', 'total_urls', 'matched', 'unmatched', 'coins_earned'],
  },
  'GET /community/:id/:variant': {
    call: async (ctx) => fromUrl('/community/:id/:variant', (await ctx.t.request('GET', `/api/community/${await communityItem(ctx)}`, { key: ctx.key })).body.url),
    status: 200,
    contentType: /^image\/jpeg$/,
  },
};

let t: TestApp;
let site: FixtureSite;
let generators: FakeGenerationProviders;
let openApi: ReturnType<typeof openApiChecker>;
beforeAll(async () => {
  site = await startFixtureSite();
  generators = await startFakeGenerationProviders();
  // The chat bot configured but taking no updates (TELEGRAM_MODE=none): POST /api/platform/bot-link answers codes.
  t = await startTestApp({ fetch: LOCAL_FETCH, jobs: { concurrency: 2, leaseMs: 10_000, pollMs: 50 }, generation: fakeGenerationConfig(generators), exports: CONTRACT_EXPORTS, telegram: testTelegramConfig() });
  openApi = openApiChecker((await t.request('GET', '/openapi.json')).body);
});
afterAll(async () => {
  await t.stop();
  await site.close();
  await generators.close();
});

const name = (r: AnyRoute) => `${r.method} ${r.path}`;

function url(route: AnyRoute, call: Call): string {
  const path = route.path.replace(/:(\w+)/g, (_m, p: string) => encodeURIComponent(call.params?.[p] ?? `missing-${p}`));
  const query = call.query ? `?${new URLSearchParams(call.query)}` : '';
  return path + query;
}

/** The request options of a call: its body in the form it takes; redirects answered as they are. */
function sent(call: Call) {
  const urlencoded = call.urlencoded ? { rawBody: new URLSearchParams(call.urlencoded).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } } : {};
  return { body: call.body, form: call.form, ...urlencoded, redirect: 'manual' as const };
}

async function fresh() {
  const account = await t.createAccount('contract');
  return { t, key: account.key, handle: account.handle };
}

it('has a contract row for every route in the table, and no stale rows', () => {
  expect(routes.map(name).filter((n) => !cases[n]), 'routes without a contract row').toEqual([]);
  expect(Object.keys(cases).filter((n) => !routes.some((r) => name(r) === n)), 'rows without a route').toEqual([]);
});

describe.each(routes.map((r) => [name(r), r] as const))('%s', (_name, route) => {
  const contract = cases[name(route)]!;
  /** The route's key rule as the document names it: a scope, master or any. */
  const need = route.key && keyRuleName(route.key);

  it('answers a valid call with the documented status and envelope', async () => {
    const ctx = await fresh();
    const call = await contract.call(ctx);
    // The call is one the document describes as valid.
    expect(openApi.parameters(route, call.params, call.query), 'path and query').toEqual([]);
    if (call.body !== undefined) expect(openApi.jsonBody(route, call.body), 'JSON body').toEqual([]);
    if (call.form) expect(openApi.formFields(route, [...new Set(call.form.keys())]), 'form').toEqual([]);
    if (call.urlencoded) expect(openApi.formFields(route, Object.keys(call.urlencoded)), 'form').toEqual([]);
    const res = await t.request(route.method, url(route, call), { key: route.auth === 'key' ? ctx.key : undefined, admin: route.auth === 'admin', ...sent(call) });
    expect(res.status, res.text.slice(0, 300)).toBe(contract.status);
    const documented = openApi.operation(route)?.responses?.[String(res.status)];
    expect(documented, `status ${res.status} is documented`).toBeDefined();
    if (contract.contentType || !documented.content?.['application/json']) {
      if (contract.contentType) expect(res.headers.get('content-type')).toMatch(contract.contentType);
      // A binary (or bodiless) answer: its type is one the document names for this status.
      const types = openApi.contentTypes(route, res.status);
      const type = res.headers.get('content-type')?.split(';')[0] ?? '';
      if (types.length) expect(types.some((t) => t === '*/*' || t === type || (t.endsWith('/*') && type.startsWith(t.slice(0, -1)))), `${type} is one of ${types}`).toBe(true);
      return;
    }
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body)[0]).toBe('success');
    expect(res.body.success).toBe(true);
    if (contract.fields) expect(Object.keys(res.body).slice(1, 1 + contract.fields.length)).toEqual(contract.fields);
    // The answer is the documented one: every field, of its type, none more, in the documented order.
    expect(openApi.response(route, res.status, res.body), JSON.stringify(res.body).slice(0, 500)).toEqual([]);
    const order = openApi.propertyOrder(route, res.status, res.body);
    expect(Object.keys(res.body)).toEqual(order.filter((field) => field in res.body));
  });

  if (route.auth !== 'none') {
    it('refuses a call without credentials with 401', async () => {
      const ctx = await fresh();
      const call = await contract.call(ctx);
      const res = await t.request(route.method, url(route, call), sent(call));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: expect.any(String) });
      expect(openApi.response(route, 401, res.body)).toEqual([]);
    });
  }

  if (route.auth === 'key' && need && need !== 'any') {
    it(`refuses a sub-key without the ${need} scope with 403`, async () => {
      const ctx = await fresh();
      const otherScopes = ['scrape', 'generate', 'search', 'media'].filter((s) => s !== need).join(',');
      const sub = await t.request('POST', '/api/platform/sub-keys', { key: ctx.key, body: { scopes: otherScopes } });
      const call = await contract.call(ctx);
      const res = await t.request(route.method, url(route, call), { key: sub.body.sub_key, ...sent(call) });
      expect(res.status).toBe(403);
      expect(openApi.response(route, 403, res.body)).toEqual([]);
      expect(res.body.error).toMatch(need === 'master' ? /master key/ : new RegExp(`'${need}' scope`));
    });
  }

  if (route.auth === 'key' && need && need !== 'master') {
    it('lets a sub-key with the right scope through', async () => {
      const ctx = await fresh();
      const scopes = need === 'any' ? 'media' : need;
      const sub = await t.request('POST', '/api/platform/sub-keys', { key: ctx.key, body: { scopes } });
      const call = await contract.call(ctx);
      const res = await t.request(route.method, url(route, call), { key: sub.body.sub_key, ...sent(call) });
      expect(res.status).toBe(contract.status);
    });
  }

  it('answers a method the path does not have with 405', async () => {
    const ctx = await fresh();
    const concrete = url(route, await contract.call(ctx)).split('?')[0]!;
    // Methods that some route (this one or a parameterised one) serves for this concrete path.
    const taken = new Set(routes.filter((r) => match(r.path)(concrete)).map((r) => r.method));
    const other = (['GET', 'POST', 'PATCH', 'DELETE', 'PUT'] as const).find((m) => !taken.has(m))!;
    const res = await t.request(other, concrete, { key: ctx.key });
    expect(res.status).toBe(405);
    expect(res.body.success).toBe(false);
  });
});
