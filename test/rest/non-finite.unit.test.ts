// Every numeric field of every route (from the route table's request schemas: query, JSON body,
// form) refuses NaN, the infinities, 1e400 and text that is no number, with an issue on that field,
// as JSON values and as form or query text (issue 20: `unlock_price=NaN` on ingest was a 500).
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { routes } from '../../rest-shim/routes.js';
import { typedBy } from '../../rest-shim/input.js';
import { numberFromText } from '../../src/platform/validation.js';

/** Whether a field's schema takes numbers (under optional, default, pipes and unions). */
function numeric(schema: z.ZodType): boolean {
  const def = schema._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType; out?: z.ZodType; options?: z.ZodType[] };
  if (def.type === 'number') return true;
  if (def.innerType) return numeric(def.innerType);
  // Form text piped into a module's numeric schema (formText in src/platform/validation.ts) counts too.
  if (def.type === 'pipe') return numeric(def.in!) || numeric(def.out!);
  if (def.type === 'union') return def.options!.some(numeric);
  return false;
}

const TEXT = ['NaN', 'Infinity', '-Infinity', '1e400', 'abc', '1e3x'];
// As JSON carries them: 1e400 parses to Infinity; NaN and Infinity can only come as strings.
const JSON_VALUES: unknown[] = [JSON.parse('1e400'), JSON.parse('-1e400'), 'NaN', 'Infinity', '1e400', 'abc'];

const cases = routes.flatMap((route) =>
  (['query', 'body', 'form'] as const).flatMap((part) => {
    const schema = route.request?.[part];
    if (!schema) return [];
    return Object.entries(schema.shape)
      .filter(([, field]) => numeric(field as z.ZodType))
      .map(([field]) => ({ name: `${route.method} ${route.path} ${part}.${field}`, schema, field, text: part !== 'body' }));
  }),
);

describe('non-finite numbers on every numeric field of every route', () => {
  it('finds the numeric fields of the route table', () => {
    expect(cases.length).toBeGreaterThan(30);
    expect(cases.map((c) => c.name)).toContain('POST /api/community/ingest form.unlock_price');
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s refuses NaN, infinities, 1e400 and text', (_name, { schema, field, text }) => {
    for (const value of text ? TEXT : JSON_VALUES) {
      const result = schema.safeParse(typedBy(schema, { [field]: value }, text));
      expect(result.success, `${field}=${String(value)}`).toBe(false);
      const onField = result.error!.issues.filter((issue) => issue.path[0] === field);
      expect(onField.length, `${field}=${String(value)}: ${JSON.stringify(result.error!.issues)}`).toBeGreaterThan(0);
    }
  });
});

describe('numbers from form and query text', () => {
  it('reads decimal text as people write it, and leaves the rest for the field to refuse', () => {
    for (const [text, number] of [['12', 12], ['-0.5', -0.5], ['.5', 0.5], ['+3', 3], ['1e3', 1000], ['2.', 2], [' 7 ', 7]] as const) expect(numberFromText(text), text).toBe(number);
    for (const text of ['NaN', 'Infinity', '-Infinity', '1e400', 'abc', '', '0x10', '1,5', '.', 'e3']) expect(numberFromText(text), text).toBe(text);
  });
});
