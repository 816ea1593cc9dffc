// The search box's query text as tsquery text: words only, the documented prefix rule, and nothing
// from the input that to_tsquery would read as syntax.
import { describe, expect, it } from 'vitest';
import { buildSearchQuery, MAX_TERMS, MAX_WORD_LENGTH, splitWord } from '../../src/modules/media/search-query.js';

describe('buildSearchQuery', () => {
  it.each([
    ['sunset', "('sunset':*)", "('sunset')"],
    ['IMG_1234', "('IMG' <-> '1234':*)", "('IMG' <-> '1234')"],
    ['sunset-beach.jpg', "('sunset' <-> 'beach' <-> 'jpg':*)", "('sunset' <-> 'beach' <-> 'jpg')"],
    ['img1234', "(('img1234':* | 'img' <-> '1234':*))", "(('img1234' | 'img' <-> '1234'))"],
    ['sun* beach', "('sun':*) & ('beach':*)", "('sun':*) & ('beach')"],
    ['sun*', "('sun':*)", null],
    ['"sunset beach"', "('sunset' <-> 'beach')", null],
    ['s', "('s')", null],
    ['sunset -beach', "('sunset') & !('beach')", null],
    ['hill or 1234', "('hill') | ('1234':*)", "('hill') | ('1234')"],
    ['hill or -beach', "('hill') & !('beach')", null],
    ["'sunset' & beach | !(x):*", "('sunset') & ('beach') & ('x')", null],
  ])('%s', (q, match, exact) => {
    expect(buildSearchQuery(q)).toEqual({ match, exact });
  });

  it.each(["'", '&|!():*', '-beach', '- -', 'or', '""', '🌅', '\u0000'])('%j requires no word: null', (q) => {
    expect(buildSearchQuery(q)).toBeNull();
  });

  it('puts nothing but letters, digits and its own operators in the text', () => {
    const hostile = "a'b\"c\\d&e|f!g(h)i:j*k<l>m-n o\u0000p";
    const { match } = buildSearchQuery(hostile)!;
    const quotedWords = match.match(/'[^']*'/g)!;
    for (const word of quotedWords) expect(word).toMatch(/^'[\p{L}\p{N}\p{M}]+'$/u);
    expect(match.replace(/'[^']*'/g, '')).toMatch(/^[\s()&|!<\->:*]*$/);
  });

  it('bounds the work: at most MAX_TERMS terms, long words cut and matched as prefixes', () => {
    const many = buildSearchQuery(Array.from({ length: 40 }, (_, i) => `w${i}x`).join(' '))!;
    expect(many.match.split(' & ')).toHaveLength(MAX_TERMS);
    const long = buildSearchQuery(`${'y'.repeat(300)} z`)!;
    expect(long.match).toBe(`('${'y'.repeat(MAX_WORD_LENGTH)}':*) & ('z')`);
  });
});

describe('splitWord', () => {
  it.each([
    ['SunsetBeach2024', ['Sunset', 'Beach', '2024']],
    ['HTTPServer', ['HTTP', 'Server']],
    ['iPhone', ['i', 'Phone']],
    ['DSC01234', ['DSC', '01234']],
    ['2024beach', ['2024', 'beach']],
    ['ÉtéBeau', ['Été', 'Beau']],
    ['sunset', ['sunset']],
  ])('%s', (word, parts) => {
    expect(splitWord(word)).toEqual(parts);
  });
});
