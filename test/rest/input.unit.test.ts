// rest-shim/input.ts: a route's query and body are typed from wire text by the route's own schemas
// and checked with the module's rules and messages before any operation runs.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readRequest } from '../../rest-shim/input.js';
import type { RestInput } from '../../rest-shim/route.js';
import { InvalidInput } from '../../src/platform/errors.js';

const schema = z.object({
  limit: z.number({ error: 'expected an integer' }).int().min(1, 'expected at least 1').max(200, 'expected at most 200').optional(),
  on: z.boolean({ error: 'expected true or false' }).optional(),
  tags: z.array(z.string(), { error: 'expected an array of strings' }).optional(),
  kind: z.enum(['a', 'b'], { error: 'expected a or b' }).optional(),
  name: z.string().max(5, 'expected at most 5 characters').optional(),
  nested: z.object({ size: z.int().optional() }).optional(),
});

const input = (parts: Partial<RestInput>): RestInput => ({ query: {}, body: {}, params: {}, baseUrl: 'http://x', files: {}, ...parts });
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInput);
    return (error as InvalidInput).message;
  }
  throw new Error('expected a refusal');
};

describe('readRequest', () => {
  it('types query text by the schema: digits, true/false/1/0, JSON arrays; an empty field is absent', () => {
    const read = readRequest({ query: schema }, input({ query: { limit: '20', on: '0', tags: '["x","y"]', kind: '', name: 'ab', other: 'kept' } }));
    expect(read.query).toEqual({ limit: 20, on: false, tags: ['x', 'y'], name: 'ab', other: 'kept' });
  });

  it("refuses with the schema's own message, naming the field", () => {
    expect(refusal(() => readRequest({ query: schema }, input({ query: { limit: '500' } })))).toBe('limit: expected at most 200');
    expect(refusal(() => readRequest({ query: schema }, input({ query: { limit: 'ten' } })))).toBe('limit: expected an integer');
    expect(refusal(() => readRequest({ query: schema }, input({ query: { on: 'yes' } })))).toBe('on: expected true or false');
    expect(refusal(() => readRequest({ query: schema }, input({ query: { tags: 'not json' } })))).toBe('tags: expected an array of strings');
    expect(refusal(() => readRequest({ body: schema }, input({ body: { kind: 'c' } })))).toBe('kind: expected a or b');
  });

  it('refuses integers beyond 32 bits, also inside objects, before GraphQL could fail on them', () => {
    expect(refusal(() => readRequest({ query: schema }, input({ query: { limit: '99999999999' } })))).toBe('limit: expected an integer from -2147483648 to 2147483647');
    expect(refusal(() => readRequest({ body: schema }, input({ body: { nested: { size: 2 ** 40 } } })))).toBe('nested.size: expected an integer from -2147483648 to 2147483647');
  });

  it('keeps an empty string of a JSON body (a real value there), and leaves the values otherwise as sent', () => {
    const read = readRequest({ body: schema }, input({ body: { name: '', limit: 3 } }));
    expect(read.body).toEqual({ name: '', limit: 3 });
    expect(refusal(() => readRequest({ body: schema }, input({ body: { name: 'toolong' } })))).toBe('name: expected at most 5 characters');
  });

  it('checks a form together with its files', () => {
    const form = z.object({ file: z.file({ error: 'file is required' }), on: z.boolean().optional() });
    const file = new File([new Uint8Array([1])], 'a.bin');
    expect(readRequest({ form }, input({ body: { on: 'true' }, files: { file } })).body).toEqual({ on: true, file });
    expect(refusal(() => readRequest({ form }, input({ body: { on: 'true' } })))).toBe('file is required');
  });
});
