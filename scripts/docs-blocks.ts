// The generated parts of docs/: each page holds them between two marker comments, and this file says
// how each part is made from the code. `npm run docs:generate` (scripts/generate-docs.ts) writes them;
// test/docs/generated-docs.unit.test.ts makes them in memory and fails when a page says otherwise.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { DEFAULT_TIERS, envSchema } from '../src/config.js';
import { withOperatorTier } from '../src/modules/quota/index.js';
import { keyRuleName } from '../src/modules/access/index.js';
import { routes } from '../rest-shim/routes.js';
import type { AnyRoute } from '../rest-shim/route.js';

export const ROOT = join(import.meta.dirname, '..');

/** One generated part: the page it lives in, its marker name, and how it is made. */
export interface GeneratedBlock {
  page: string;
  name: string;
  render: () => string;
}

/** Markdown table cell: a `|` would end the cell, a line break the row. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

/** Zod's wrappers around a variable's own schema, peeled until a default (or nothing) is found. */
function defaultOf(schema: z.ZodType): { value: unknown } | undefined {
  let current: z.ZodType | undefined = schema;
  while (current) {
    if (current instanceof z.ZodDefault) return { value: (current.def as { defaultValue: unknown }).defaultValue };
    if (current instanceof z.ZodOptional || current instanceof z.ZodNullable) current = current.unwrap() as z.ZodType;
    else if (current instanceof z.ZodPipe) current = current.in as z.ZodType;
    else return undefined;
  }
  return undefined;
}

function shownDefault(value: unknown): string {
  const text = Array.isArray(value) ? value.join(',') : String(value);
  return `\`${text}\``;
}

/**
 * Every environment variable, in the order the schema checks them: its meaning is the schema's
 * `.describe()` (or `.meta({ description })`), its default the schema's `.default()` unless the meta
 * says what to show instead (`shownDefault`: a generated key, the request's host ...).
 */
export function configurationTable(): string {
  const rows = Object.entries(envSchema.shape).map(([name, schema]) => {
    const meta = z.globalRegistry.get(schema as z.ZodType) as { description?: string; shownDefault?: string } | undefined;
    if (!meta?.description) throw new Error(`${name} has no description: add .describe('...') to its schema (src/config.ts or its module's *.settings.ts)`);
    const found = defaultOf(schema as z.ZodType);
    const shown = meta.shownDefault ?? (found && found.value !== undefined ? shownDefault(found.value) : 'unset');
    return `| \`${name}\` | ${cell(shown)} | ${cell(meta.description)} |`;
  });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** The quota tiers a deployment has without TIERS (the operator's included). */
export function tiersTable(): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const rows = Object.entries(withOperatorTier(DEFAULT_TIERS)).map(([tier, limits]) => `| ${tier} | ${n(limits.daily)} | ${n(limits.perMinute)} |`);
  return ['| tier | requests per UTC day | requests per minute |', '|---|---|---|', ...rows].join('\n');
}

/** Who may call a route: no key, the admin token, or a key (master, any, or a sub-key scope). */
function whoMayCall(route: AnyRoute): string {
  if (route.auth === 'none') return 'none';
  if (route.auth === 'admin') return 'admin token';
  return route.key ? keyRuleName(route.key) : 'any';
}

/** A route as the specification writes it: `GET /api/jobs/{job_id}` for Express's `/api/jobs/:job_id`. */
export const specRoute = (route: AnyRoute) => `${route.method} ${route.path.replace(/:([A-Za-z_]\w*)/g, '{$1}')}`;

/** Every row of the route table, in its order: method, path (spec style), who may call, summary. */
export function routeList(): string {
  const rows = routes.map((route) => `| \`${specRoute(route)}\` | ${whoMayCall(route)} | ${cell(route.summary)} |`);
  return ['| route | key | summary |', '|---|---|---|', ...rows].join('\n');
}

export const GENERATED_BLOCKS: readonly GeneratedBlock[] = [
  { page: 'docs/configuration.md', name: 'configuration-table', render: configurationTable },
  { page: 'docs/configuration.md', name: 'tiers-table', render: tiersTable },
  { page: 'docs/rest-api.md', name: 'route-list', render: routeList },
];

const begin = (name: string) => `<!-- generated:${name} begin (npm run docs:generate writes this part from the code: edit the code, not this) -->`;
const end = (name: string) => `<!-- generated:${name} end -->`;

/** The page with the block's part replaced by `body`; an error when the page lacks its markers. */
export function fillBlock(page: string, text: string, name: string, body: string): string {
  const from = text.indexOf(begin(name));
  const to = text.indexOf(end(name));
  if (from === -1 || to < from) throw new Error(`${page} has no generated part "${name}": put the lines\n${begin(name)}\n${end(name)}\nwhere it belongs`);
  return `${text.slice(0, from)}${begin(name)}\n${body}\n${text.slice(to)}`;
}

/** Every page that holds generated parts: as it is on disk, and as the code makes it. */
export function generatedPages(): { page: string; current: string; expected: string }[] {
  const pages = [...new Set(GENERATED_BLOCKS.map((b) => b.page))];
  return pages.map((page) => {
    const current = readFileSync(join(ROOT, page), 'utf8');
    const expected = GENERATED_BLOCKS.filter((b) => b.page === page).reduce((text, b) => fillBlock(page, text, b.name, b.render()), current);
    return { page, current, expected };
  });
}
