// The operator's review of something pending (a wiki subject, an ownership claim): a REST path per
// decision (`<path>/approve`, `<path>/reject`), the decision one GraphQL argument the row fixes.
import { z } from 'zod';
import { builder } from './builder.js';
import type { RestBinding } from './operation.js';

const DECISIONS = { approve: 'approved', reject: 'rejected' } as const;

/** The review's input field `decision` (each REST row fixes it; GraphQL takes it as an enum argument). */
export const reviewDecision = z.enum(Object.values(DECISIONS));

/** The decision argument's enum type: each reviewed thing names its own (the names are public), of the same values. */
export const decisionEnum = (name: string) => builder.enumType(name, { values: Object.values(DECISIONS) });

/** The two rows of a review at `path`, each with its summary; `row` holds what both share (errors, path fields). */
export function reviewRows(path: `/${string}`, summaries: Record<keyof typeof DECISIONS, string>, row: Omit<RestBinding, 'route' | 'summary' | 'fixed'> = {}): RestBinding[] {
  return Object.entries(DECISIONS).map(([verb, decision]) => ({
    ...row,
    route: `POST ${path}/${verb}` as const,
    fixed: { decision },
    summary: summaries[verb as keyof typeof DECISIONS],
  }));
}
