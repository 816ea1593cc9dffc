// Our PL/pgSQL functions and triggers call SQL-language functions only where PostgreSQL inlines them.
// Before PostgreSQL 18 a SQL-language function that is not inlined is planned again on every call
// (PL/pgSQL keeps its statements' plans for the session): bridge_conversion_json, planned per call,
// was half of a coin conversion's database CPU (prisma/migrations/*_functions_planned_once). Found
// from the database itself (pg_proc), on PGlite and PostgreSQL: every SQL-language function whose name
// appears in a PL/pgSQL function's body must be one PostgreSQL can inline there, a single SELECT of
// expressions (no FROM, no subquery, no write).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ runWorkers: false });
});
afterAll(() => t.stop());

/**
 * Planned on every call on purpose: nearest_image_objects runs once per new image (make_image_object),
 * where a plan made for the call's band tags is worth its planning beside the image's own work.
 */
const PLANNED_PER_CALL = ['nearest_image_objects'];

interface FunctionRow {
  name: string;
  language: string;
  body: string;
}

describe('SQL-language functions called from PL/pgSQL', () => {
  it('are only those PostgreSQL inlines (nothing planned again on every call)', async () => {
    const functions = await t.app.services.db.query<FunctionRow>(
      `SELECT p.proname AS name, l.lanname AS language, p.prosrc AS body
         FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = current_schema() AND l.lanname IN ('sql', 'plpgsql')`,
    );
    const plpgsql = functions.filter((f) => f.language === 'plpgsql');
    const sql = functions.filter((f) => f.language === 'sql');
    expect(plpgsql.length).toBeGreaterThan(10);
    const calledFromPlpgsql = sql.filter((f) => plpgsql.some((caller) => new RegExp(`\\b${f.name}\\s*\\(`).test(caller.body)));
    // Inlinable: one SELECT of expressions, no FROM (a FROM, even in a subquery, stops inlining), no write.
    const inlinable = (f: FunctionRow) => /^\s*SELECT\b/i.test(f.body) && !/\b(FROM|INSERT|UPDATE|DELETE)\b/i.test(f.body) && !f.body.trim().replace(/;\s*$/, '').includes(';');
    expect(calledFromPlpgsql.length).toBeGreaterThan(0);
    expect(calledFromPlpgsql.filter((f) => !inlinable(f)).map((f) => f.name)).toEqual(PLANNED_PER_CALL);
  });
});
