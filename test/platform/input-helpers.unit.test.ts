// The shared input helpers (src/platform/validation.ts): the integer and text fields the modules'
// inputs are built of, and the one 4-decimal rule for coins and credits that the ledger, the inputs
// and the settings (BRIDGE_COINS_PER_CREDIT, STYLES_PREMIUM, GENERATE_CREDITS_PER_IMAGE) all ask.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { hasAtMost4Decimals, int, text, toMinor, UNITS_PER_WHOLE } from '../../src/platform/validation.js';
import { generationEnvShape } from '../../src/modules/generation/generation.settings.js';

const firstMessage = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success ? undefined : result.error.issues[0]!.message;
};

describe('int', () => {
  const limit = z.object({ limit: int('an integer').min(1, 'expected at least 1').default(20) });

  it('takes whole numbers and answers `expected <what>` for anything else', () => {
    expect(limit.parse({ limit: 5 })).toEqual({ limit: 5 });
    for (const value of [1.5, '5', null, true, Number.NaN]) expect(firstMessage(limit, { limit: value })).toBe('expected an integer');
    expect(firstMessage(limit, { limit: 0 })).toBe('expected at least 1');
  });

  it('leaves a missing field to its default (the bounties copy answered alike: every use has one)', () => {
    expect(limit.parse({})).toEqual({ limit: 20 });
    expect(limit.parse({ limit: undefined })).toEqual({ limit: 20 });
    expect(firstMessage(int('a number of days'), undefined)).toBe('expected a number of days');
  });
});

describe('text', () => {
  it('trims, and refuses what is not a string or longer than the limit', () => {
    expect(text(5).parse('  abc  ')).toBe('abc');
    expect(firstMessage(text(5), 'abcdef')).toBe('expected at most 5 characters');
    expect(firstMessage(text(5), 7)).toBe('expected a string');
  });
});

describe('the 4-decimal rule', () => {
  it('takes every amount with at most 4 decimals as its exact number of minor units', () => {
    // A fixed walk over 0 to 1000 in steps of 0.0001 (every such value), and large ones to the ledger's maximum.
    const wrong: number[] = [];
    for (let minor = 0; minor <= 10_000_000; minor++) if (toMinor(minor / UNITS_PER_WHOLE) !== minor) wrong.push(minor);
    expect(wrong).toEqual([]);
    for (const value of [0.0001, 0.1234, 999.9999, 123_456.7891, 1_000_000_000]) expect(hasAtMost4Decimals(value)).toBe(true);
  });

  it('refuses 5 decimals where they can be told apart, and amounts past safe integers', () => {
    for (const value of [0.00001, 0.00015, 1.00001, 3.14159]) expect(toMinor(value)).toBeUndefined();
    expect(hasAtMost4Decimals(Number.MAX_SAFE_INTEGER)).toBe(false);
    expect(hasAtMost4Decimals(Number.NaN)).toBe(false);
  });

  it('is what GENERATE_CREDITS_PER_IMAGE is checked by, with its message', () => {
    const price = generationEnvShape.GENERATE_CREDITS_PER_IMAGE;
    expect(price.parse('0.0625')).toBe(0.0625);
    expect(firstMessage(price, '1.00001')).toBe('GENERATE_CREDITS_PER_IMAGE may have at most 4 decimals');
  });
});
