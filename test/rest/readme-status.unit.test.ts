// The README's Status section tells the truth about the route table: every route it marks as working
// is served, every served route is marked as working (or listed as ours, beyond the specification),
// and the counts in its text match its table. A route that lands must move to "works" there.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routes } from '../../rest-shim/routes.js';

const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

/** `{job_id}`, `{id}`, `:id` ... all become `{}`: the names differ between the spec and Express. */
const normalise = (method: string, path: string) => `${method} ${path.replace(/\{[^}]+\}|:[A-Za-z_][A-Za-z0-9_]*/g, '{}')}`;

/** Backticked `METHOD /path` entries in a piece of Markdown. */
function routesIn(text: string): string[] {
  return [...text.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^`\s]*)`/g)].map((m) => normalise(m[1]!, m[2]!));
}

function statusSection(): string {
  const start = readme.indexOf('\n## Status\n');
  expect(start, 'README.md has a "## Status" section').toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

interface StatusRow {
  section: string;
  works: string[];
  notYet: string[];
}

function statusTable(): StatusRow[] {
  const lines = statusSection().split('\n');
  const header = lines.findIndex((l) => /^\|\s*specification section\s*\|\s*works\s*\|\s*not yet\s*\|$/.test(l.trim()));
  expect(header, 'the Status section has a table "| specification section | works | not yet |"').toBeGreaterThan(-1);
  const rows: StatusRow[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').slice(1, -1);
    expect(cells, line).toHaveLength(3);
    rows.push({ section: cells[0]!.trim(), works: routesIn(cells[1]!), notYet: routesIn(cells[2]!) });
  }
  return rows;
}

/** The "Ours, beyond the specification: ..." paragraph. */
function oursParagraph(): string {
  const paragraph = statusSection()
    .split('\n\n')
    .find((p) => p.startsWith('Ours, beyond the specification:'));
  expect(paragraph, 'the Status section has an "Ours, beyond the specification:" paragraph').toBeDefined();
  // Only the part about the route table: what follows is outside it.
  return paragraph!.split('Outside the REST route table')[0]!;
}

const served = new Set(routes.map((r) => normalise(r.method, r.path)));

describe('README Status section', () => {
  const rows = statusTable();
  const works = rows.flatMap((r) => r.works);
  const notYet = rows.flatMap((r) => r.notYet);
  const ours = routesIn(oursParagraph());

  it('lists routes, each once', () => {
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) expect(row.works.length + row.notYet.length, `row ${row.section}`).toBeGreaterThan(0);
    const all = [...works, ...notYet, ...ours];
    expect(all.filter((r, i) => all.indexOf(r) !== i), 'routes listed twice').toEqual([]);
  });

  it('marks as working only routes that the route table serves', () => {
    expect(works.filter((r) => !served.has(r)), 'marked "works" in README.md but not in rest-shim/routes.ts').toEqual([]);
    expect(ours.filter((r) => !served.has(r)), 'listed as ours in README.md but not in rest-shim/routes.ts').toEqual([]);
  });

  it('marks every route of the route table as working (or as ours)', () => {
    expect(notYet.filter((r) => served.has(r)), 'served by rest-shim/routes.ts but still "not yet" in README.md: move it to "works" and update the counts').toEqual([]);
    const listed = new Set([...works, ...ours]);
    expect(
      [...served].filter((r) => !listed.has(r)),
      'served by rest-shim/routes.ts but missing from the README Status section: add it to the table (a spec route) or to the "Ours, beyond the specification" paragraph',
    ).toEqual([]);
  });

  it('states the counts of its table', () => {
    const all = /\*\*All (\d+) of its routes work\s+today\*\*/.exec(statusSection());
    if (all) {
      expect(notYet, 'the README says every route works').toEqual([]);
      expect(Number(all[1])).toBe(works.length);
      return;
    }
    const counts = /\*\*(\d+) of its (\d+) routes work\s+today; the other (\d+) are not built yet\*\*/.exec(statusSection());
    expect(counts, 'the sentence "**N of its M routes work today; the other K are not built yet**" (or "**All N of its routes work today**")').not.toBeNull();
    expect(counts!.slice(1).map(Number)).toEqual([works.length, works.length + notYet.length, notYet.length]);
  });
});
