// The generated parts of docs/ say what the code says: the configuration table (src/config.ts and the
// modules' *.settings.ts), the default tiers, and the route list (rest-shim/routes.ts). Each is made
// again in memory here; a page that differs fails, and `npm run docs:generate` brings it up to date.
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../src/config.js';
import { routes } from '../../rest-shim/routes.js';
import { fillBlock, generatedPages, specRoute } from '../../scripts/docs-blocks.js';

/** The first line where two texts part, to name it in the failure. */
function firstDifference(current: string, expected: string): string {
  const a = current.split('\n');
  const b = expected.split('\n');
  const i = a.findIndex((line, n) => line !== b[n]);
  const at = i === -1 ? a.length : i;
  return `line ${at + 1}:\n  page: ${a[at] ?? '(end of page)'}\n  code: ${b[at] ?? '(end of page)'}`;
}

describe('generated docs', () => {
  const pages = generatedPages();

  it.each(pages.map((p) => [p.page, p] as const))('%s matches the code (else: npm run docs:generate)', (_page, { current, expected }) => {
    expect(current === expected, firstDifference(current, expected)).toBe(true);
  });

  it('lists every environment variable and every route', () => {
    const configuration = pages.find((p) => p.page === 'docs/configuration.md')!.expected;
    expect(CONFIG_VARIABLES.filter((name) => !configuration.includes(`| \`${name}\` |`))).toEqual([]);
    const restApi = pages.find((p) => p.page === 'docs/rest-api.md')!.expected;
    expect(routes.map(specRoute).filter((r) => !restApi.includes(`| \`${r}\` |`))).toEqual([]);
  });

  it('rewrites only between the markers, and refuses a page without them', () => {
    const begin = '<!-- generated:x begin (npm run docs:generate writes this part from the code: edit the code, not this) -->';
    const page = `intro\n${begin}\nold\n<!-- generated:x end -->\nafter\n`;
    expect(fillBlock('p.md', page, 'x', 'new')).toBe(`intro\n${begin}\nnew\n<!-- generated:x end -->\nafter\n`);
    expect(() => fillBlock('p.md', 'no markers', 'x', 'new')).toThrow(/p.md has no generated part "x"/);
  });
});
