// Following wiki subjects: follow, unfollow and the list through REST, and the GraphQL subscription
// that tells followers (and only them) of a newly verified photo and of a merged proposal on a
// community item tagged with the subject.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { form, scene } from '../helpers/images.js';

let t: TestApp;
const clients: Client[] = [];
beforeAll(async () => {
  t = await startTestApp({ vision: { ...loadConfig({}).vision, local: { ...loadConfig({}).vision.local, enabled: false } } });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await t?.stop();
});

async function approvedSubject(name: string) {
  const creator = await t.createAccount('follow-creator');
  const made = await t.request('POST', '/api/wiki/subjects', { key: creator.key, body: { name, category: 'landmark' } });
  await t.request('POST', `/api/admin/wiki/subjects/${made.body.slug}/approve`, { admin: true });
  return made.body.slug as string;
}

/** Subscribes with a key and collects `count` events; `ready` resolves once the server has the subscription. */
function listen(key: string, count: number) {
  const client = createClient({ url: t.url.replace('http', 'ws') + '/graphql', webSocketImpl: WebSocket, connectionParams: { 'X-API-Key': key }, retryAttempts: 0 });
  clients.push(client);
  const events: unknown[] = [];
  let markReady: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const done = new Promise<unknown[]>((resolve, reject) => {
    const stop = client.subscribe(
      { query: 'subscription { followedSubjectEvents { type subject { slug } photo { databaseId status } communityItemId } }' },
      {
        next: (value) => {
          events.push(value);
          if (events.length >= count) {
            stop();
            resolve(events);
          }
        },
        error: reject,
        complete: () => resolve(events),
      },
    );
  });
  client.subscribe({ query: '{ health }' }, { next: () => markReady(), error: () => markReady(), complete: () => {} });
  return { done, ready, events };
}

describe('following subjects', () => {
  it('follows, lists and unfollows, idempotently, and refuses unknown or unreviewed subjects', async () => {
    const slug = await approvedSubject(`Lighthouse ${Date.now()}`);
    const fan = await t.createAccount('fan');
    const follow = await t.request('POST', `/api/community/subjects/${slug}/follow`, { key: fan.key });
    expect(follow.body).toEqual({ success: true, subject_slug: slug, following: true, unchanged: false });
    expect((await t.request('POST', `/api/community/subjects/${slug}/follow`, { key: fan.key })).body.unchanged).toBe(true);
    const listed = await t.request('GET', '/api/community/following', { key: fan.key });
    expect(listed.body).toMatchObject({ total: 1, subjects: [{ slug, followed_at: expect.any(String) }] });
    const unfollow = await t.request('DELETE', `/api/community/subjects/${slug}/follow`, { key: fan.key });
    expect(unfollow.body).toEqual({ success: true, subject_slug: slug, following: false, unchanged: false });
    expect((await t.request('DELETE', `/api/community/subjects/${slug}/follow`, { key: fan.key })).body.unchanged).toBe(true);
    expect((await t.request('GET', '/api/community/following', { key: fan.key })).body.total).toBe(0);

    const pending = await t.request('POST', '/api/wiki/subjects', { key: (await t.createAccount('other-creator')).key, body: { name: `Secret ${Date.now()}`, category: 'x' } });
    expect((await t.request('POST', `/api/community/subjects/${pending.body.slug}/follow`, { key: fan.key })).status).toBe(404);
    expect((await t.request('POST', '/api/community/subjects/no-such-subject/follow', { key: fan.key })).status).toBe(404);
    expect((await t.request('POST', `/api/community/subjects/${slug}/follow`)).status).toBe(401);
    expect((await t.request('GET', '/api/community/following?limit=0', { key: fan.key })).body.error).toMatch(/^limit/);
  });

  it('tells followers, and only them, of a newly verified photo and of a merged proposal tagged with the subject', async () => {
    const slug = await approvedSubject(`Bridge ${Date.now()}`);
    const fan = await t.createAccount('listening-fan');
    const stranger = await t.createAccount('not-following');
    await t.request('POST', `/api/community/subjects/${slug}/follow`, { key: fan.key });
    const heard = listen(fan.key, 2);
    const unheard = listen(stranger.key, 1);
    await Promise.all([heard.ready, unheard.ready]);

    const photographer = await t.createAccount('follow-photographer');
    const photo = await t.request('POST', `/api/wiki/subjects/${slug}/contribute`, { key: photographer.key, form: form({ body: await scene(4242), name: 'p.jpg', type: 'image/jpeg' }) });
    for (let i = 0; i < 3; i++) await t.request('POST', `/api/wiki/metadata/${photo.body.photo.id}/vote`, { key: (await t.createAccount('follow-voter')).key, body: { vote: 'confirm' } });

    // A proposal merged on a community item tagged with the subject's slug.
    const owner = await t.createAccount('item-owner');
    const item = await t.request('POST', '/api/community/contribute', { key: owner.key, form: form({ body: await scene(4243), name: 'c.jpg', type: 'image/jpeg' }, { tags: JSON.stringify([slug]) }) });
    await t.request('POST', `/api/wiki/image/${item.body.id}/policy`, { key: owner.key, body: { policy: 'restricted' } });
    const proposal = await t.request('POST', `/api/wiki/image/${item.body.id}/intel`, { key: (await t.createAccount('proposer')).key, body: { changes: { caption: 'Seen from the north bank' } } });
    expect(proposal.status, proposal.text).toBe(201);
    expect((await t.request('POST', `/api/wiki/image/intel/${proposal.body.id}/resolve`, { key: owner.key, body: { action: 'approve' } })).status).toBe(200);

    expect(await heard.done).toEqual([
      { data: { followedSubjectEvents: { type: 'photo_verified', subject: { slug }, photo: { databaseId: photo.body.photo.id, status: 'verified' }, communityItemId: null } } },
      { data: { followedSubjectEvents: { type: 'proposal_merged', subject: { slug }, photo: null, communityItemId: item.body.id } } },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(unheard.events).toEqual([]);
  });
});
