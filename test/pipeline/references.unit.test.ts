// References between pipeline steps: where they are found, how they resolve (a whole-string
// reference keeps the value's type; references in text become text; $$ is a literal $), and the
// checks before anything runs against the JSON Schema of the referenced action's outputs.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkReference, findReferences, referencesIn, resolve, schemaAt, type StepOutcome } from '../../src/modules/pipeline/pipeline.references.js';

const outcomes = new Map<string, StepOutcome>([
  ['s', { status: 'ok', output: { count: 2, urls: ['https://a/1.jpg', 'https://a/2.jpg'], images: [{ url: 'https://a/1.jpg', width: 10 }, { url: 'https://a/2.jpg', width: null }], query: 'red fox' } }],
  ['bad', { status: 'failed', output: null }],
]);

const outputs = z.toJSONSchema(z.object({ count: z.int(), urls: z.array(z.string()), images: z.array(z.object({ url: z.string(), width: z.int().nullable() })), extra: z.looseObject({ a: z.string() }) }), { io: 'output' }) as Record<string, unknown>;
const steps = [
  { name: 's', action: 'scrape', outputs },
  { name: 'me', action: 'filter', outputs },
  { name: 'later', action: 'scrape', outputs },
];

describe('finding references', () => {
  it('tells a whole-string reference from references inside text, with dot paths and indexes', () => {
    expect(referencesIn('$s.urls[0]').whole).toEqual({ text: '$s.urls[0]', step: 's', path: ['urls', 0] });
    expect(referencesIn('$s.images.1.url').whole).toEqual({ text: '$s.images.1.url', step: 's', path: ['images', 1, 'url'] });
    expect(referencesIn('${s.count}').whole).toEqual({ text: '${s.count}', step: 's', path: ['count'] });
    expect(referencesIn('photos of $s.query, ${s.count}.jpg').embedded.map((r) => r.path)).toEqual([['query'], ['count']]);
    // Not references: a price, a bare name, an escaped dollar.
    for (const text of ['costs $5', 'hello $s', '$$s.urls', 'a $ sign']) expect(referencesIn(text)).toEqual({ whole: null, embedded: [] });
  });

  it('finds references anywhere in params, with where they are', () => {
    expect(findReferences({ urls: ['$s.urls[1]', 'https://x/y.jpg'], nested: { q: 'about $s.query' }, n: 3 })).toEqual([
      { at: ['urls', 0], whole: true, reference: { text: '$s.urls[1]', step: 's', path: ['urls', 1] } },
      { at: ['nested', 'q'], whole: false, reference: { text: '$s.query', step: 's', path: ['query'] } },
    ]);
  });
});

describe('resolving', () => {
  it('keeps the type of a whole-string reference and makes text of references inside text', () => {
    expect(resolve({ urls: '$s.urls', n: '$s.count', first: '$s.images[0]', w: '$s.images.0.width' }, outcomes)).toEqual({
      urls: ['https://a/1.jpg', 'https://a/2.jpg'],
      n: 2,
      first: { url: 'https://a/1.jpg', width: 10 },
      w: 10,
    });
    expect(resolve({ prompt: 'a $s.query, ${s.count} of them: $s.urls; cost $$5 $nope' }, outcomes)).toEqual({ prompt: 'a red fox, 2 of them: ["https://a/1.jpg","https://a/2.jpg"]; cost $5 $nope' });
  });

  it('fails a reference that resolves to nothing, or to a step that did not succeed', () => {
    expect(() => resolve('$s.urls[5]', outcomes)).toThrow('$s.urls[5] resolves to nothing: urls[5] of step s (the list has 2 items)');
    expect(() => resolve('$s.images[1].width', outcomes)).toThrow('resolves to nothing: images[1].width of step s');
    expect(() => resolve('$bad.urls', outcomes)).toThrow('$bad.urls: step bad was failed, so it has no output');
  });
});

describe('checking before anything runs', () => {
  const check = (text: string, index = 1, param: Record<string, unknown> | null = null) => () => checkReference(findReferences(text)[0]!, steps, index, param, 'steps.1.params.x');

  it('accepts fields the outputs declare, through arrays and open objects', () => {
    expect(check('$s.images[3].url')).not.toThrow();
    expect(check('$s.extra.anything.deeper')).not.toThrow();
    expect(check('$s.urls', 1, { type: 'array', items: { type: 'string' } })).not.toThrow();
    expect(check('$s.count', 1, { type: 'number' })).not.toThrow();
  });

  it('refuses unknown steps, itself, later steps, undeclared fields and types the param cannot take', () => {
    expect(check('$x.urls')).toThrow('steps.1.params.x: $x.urls refers to no step named x (the steps are: s, me, later)');
    expect(check('$me.urls')).toThrow('refers to this step itself');
    expect(check('$later.urls')).toThrow('refers to step later, which runs after this one (steps.2)');
    expect(check('$s.link')).toThrow('$s.link cannot be read: scrape step s: it has no field link (its outputs: count, urls, images, extra)');
    expect(check('$s.images[0].height')).toThrow('images[0] has no field height (its fields: url, width)');
    expect(check('$s.urls.first')).toThrow('urls is an array, which has no fields');
    expect(check('$s.count', 1, { type: 'array' })).toThrow('$s.count is an integer, but this param takes an array');
  });

  it('walks JSON Schema through nullable values', () => {
    const schema = z.toJSONSchema(z.object({ maybe: z.object({ a: z.string() }).nullable() }), { io: 'output' }) as Record<string, unknown>;
    expect(schemaAt(schema, ['maybe', 'a'])).toEqual({ schema: { type: 'string' } });
    expect(schemaAt(schema, ['maybe', 'b'])).toEqual({ problem: 'maybe has no field b (its fields: a)' });
  });
});
