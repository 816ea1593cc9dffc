// The nesting limit (src/platform/validation.ts): linear scans over JSON and GraphQL text, and an
// explicit-stack walk over parsed values, that never recurse, however deep the input.
import { describe, expect, it } from 'vitest';
import { graphqlNestsTooDeep, jsonNestsTooDeep, MAX_NESTING_DEPTH, valueNestsTooDeep } from '../../src/platform/validation.js';

const brackets = (levels: number, open = '[', close = ']') => `${open.repeat(levels)}${close.repeat(levels)}`;

describe('jsonNestsTooDeep', () => {
  it('counts arrays and objects to the limit, and one more is too deep', () => {
    expect(jsonNestsTooDeep(brackets(MAX_NESTING_DEPTH))).toBe(false);
    expect(jsonNestsTooDeep(brackets(MAX_NESTING_DEPTH + 1))).toBe(true);
    expect(jsonNestsTooDeep(`${'{"a":'.repeat(MAX_NESTING_DEPTH + 1)}1${'}'.repeat(MAX_NESTING_DEPTH + 1)}`)).toBe(true);
    expect(jsonNestsTooDeep(brackets(1_000_000))).toBe(true);
  });

  it('measures depth, not count: siblings do not add up', () => {
    expect(jsonNestsTooDeep(`[${Array.from({ length: 10_000 }, () => '[[1]]').join(',')}]`)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonNestsTooDeep(JSON.stringify({ text: '['.repeat(1000), quoted: '"[[[[\\"' }))).toBe(false);
    expect(jsonNestsTooDeep(`{"a":"\\"${'['.repeat(100)}"}`)).toBe(false);
  });
});

describe('graphqlNestsTooDeep', () => {
  it('counts selections, lists, objects and argument lists; skips strings, block strings and comments', () => {
    expect(graphqlNestsTooDeep(`{ ${'a { '.repeat(MAX_NESTING_DEPTH - 1)}b${' }'.repeat(MAX_NESTING_DEPTH - 1)} }`)).toBe(false);
    expect(graphqlNestsTooDeep(`{ ${'a { '.repeat(MAX_NESTING_DEPTH)}b${' }'.repeat(MAX_NESTING_DEPTH)} }`)).toBe(true);
    expect(graphqlNestsTooDeep(`{ a(x: ${brackets(100_000)}) }`)).toBe(true);
    expect(graphqlNestsTooDeep(`{ a(x: "${'['.repeat(200)}\\"") b(y: """${'{'.repeat(200)} \\""" """) # ${'('.repeat(200)}\n c }`)).toBe(false);
  });
});

describe('valueNestsTooDeep', () => {
  it('walks a parsed value a million levels deep without recursion', () => {
    expect(valueNestsTooDeep(JSON.parse(brackets(1_000_000)))).toBe(true);
    expect(valueNestsTooDeep(JSON.parse(brackets(MAX_NESTING_DEPTH)))).toBe(false);
    expect(valueNestsTooDeep(JSON.parse(brackets(MAX_NESTING_DEPTH + 1)))).toBe(true);
    expect(valueNestsTooDeep({ a: 1, b: 'x', c: null, d: [1, { e: [] }] })).toBe(false);
    expect(valueNestsTooDeep(undefined)).toBe(false);
  });
});
