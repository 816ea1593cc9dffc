// Tag confirmation by a model provider's own judgement (an OpenAI-compatible Chat Completions API,
// here a local server answering in its documented shape): the tags the model sees confirm the set,
// the judgement costs the tagger one external analysis, and without credits the service falls back
// to matching the tags against an analysis.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { form, scene } from '../helpers/images.js';

let t: TestApp;
let model: Server;
const prompts: string[] = [];

/** A chat completion whose content is the given JSON, as the Chat Completions API answers. */
const completion = (content: unknown) => JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(content) }, finish_reason: 'stop' }] });

beforeAll(async () => {
  model = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = JSON.parse(body) as { messages: Array<{ role: string; content: unknown }> };
      const system = String(request.messages[0]!.content);
      const instruction = (request.messages[1]!.content as Array<{ type: string; text?: string }>).find((part) => part.type === 'text')!.text!;
      prompts.push(instruction);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      // The judgement names one given tag (in another case) and one it was never given.
      if (system.startsWith('You check tags')) res.end(completion({ matches: ['HARBOR', 'lighthouse'] }));
      else res.end(completion({ text: '', caption: 'A painted scene', labels: ['painting'], confidence: 0.9 }));
    });
  });
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
  const base = loadConfig({}).vision;
  t = await startTestApp({
    vision: { ...base, local: { ...base.local, enabled: false }, openai: { apiKey: 'sk-test-0123456789', baseUrl: `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`, model: 'gpt-test' } },
  });
});
afterAll(async () => {
  await t?.stop();
  await new Promise((resolve) => model.close(resolve));
});

describe('tags judged by a model provider', () => {
  it("confirms a set by the model's matches among the given tags, paid from the tagger's credits", async () => {
    const owner = await t.createAccount('model-owner');
    const tagger = await t.createAccount('model-tagger');
    await t.app.services.credits.grant(tagger.id, { amount: 5 });
    const id = (await t.request('POST', '/api/community/contribute', { key: owner.key, form: form({ body: await scene(3131), name: 'p.jpg', type: 'image/jpeg' }) })).body.id;
    const res = await t.request('POST', `/api/community/${id}/tag`, { key: tagger.key, body: { tags: ['harbor', 'market'] } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ verified: true, matched: ['harbor'], coins_earned: 0.75 });
    expect(res.body.item.verified).toBe(true);
    expect(prompts.at(-1)).toBe('The tags: ["harbor","market"]. Which of them describe this image?');
    // One analysis (labels, caption) and one judgement, each an external analysis of 1 credit.
    expect((await t.app.services.ledger.wallet(tagger.id, 'credits')).balance).toBe(3 * 10_000);
  });

  it('falls back to matching the tags against an analysis when the tagger cannot pay for the model', async () => {
    const owner = await t.createAccount('poor-owner');
    const tagger = await t.createAccount('poor-tagger');
    const id = (await t.request('POST', '/api/community/contribute', { key: owner.key, form: form({ body: await scene(3132), name: 'p.jpg', type: 'image/jpeg' }) })).body.id;
    const asked = prompts.length;
    const res = await t.request('POST', `/api/community/${id}/tag`, { key: tagger.key, body: { tags: ['harbor'] } });
    expect(res.body).toMatchObject({ verified: false, matched: [], coins_earned: 0.5 });
    expect(prompts.length).toBe(asked);
  });
});
