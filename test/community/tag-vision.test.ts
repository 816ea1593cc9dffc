// Vision confirmation of tags with the local provider (OCR and the object detector): a tag set that
// names what the image shows pays the bonus and makes the item AI-verified; one that does not, not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { form } from '../helpers/images.js';
import { textImage } from '../fixtures/vision/images.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());

describe('tags confirmed by the local vision provider', () => {
  it('pays the bonus for a set that matches the words in the image and lists the item as verified', async () => {
    const owner = await t.createAccount('sign-owner');
    const tagger = await t.createAccount('sign-tagger');
    const word = 'HARBOR';
    const made = await t.request('POST', '/api/community/contribute', { key: owner.key, form: form({ body: await textImage([word, 'MARKET']), name: 'sign.png', type: 'image/png' }) });
    expect(made.status, made.text).toBe(201);

    const wrong = await t.request('POST', `/api/community/${made.body.id}/tag`, { key: owner.key, body: { tags: ['giraffe'] } });
    // The contributor's own item: the tags are checked, nothing is earned (issue 20: it paid 0.5 before).
    expect(wrong.body).toMatchObject({ coins_earned: 0, verified: false, matched: [] });
    expect(wrong.body.item.verified).toBe(false);

    const right = await t.request('POST', `/api/community/${made.body.id}/tag`, { key: tagger.key, body: { tags: ['harbor', 'market', 'sunset'] } });
    expect(right.status, right.text).toBe(200);
    expect(right.body).toMatchObject({ coins_earned: 0.75, verified: true, matched: ['harbor', 'market'], balance: 0.75 });
    expect(right.body.item.verified).toBe(true);

    const verified = await t.request('GET', '/api/community/search?verified=1&limit=100');
    expect(verified.body.items.map((i: { id: number }) => i.id)).toContain(made.body.id);
  }, 120_000);
});
