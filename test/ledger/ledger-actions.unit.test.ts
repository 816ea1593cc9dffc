// The table of ledger actions (src/modules/ledger/ledger-actions.ts): every name is one the ledger
// accepts, names are not reused, every reward has its action, and the SQL that writes or reads an
// action by name (the migrations' functions and indexes, statements in src) names one of the table.
// TypeScript call sites are checked by the compiler: TransferRequest.action is a LedgerActionName.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LEDGER_ACTION_FORMAT, LEDGER_ACTIONS, LedgerAction, rewardLedgerAction } from '../../src/modules/ledger/ledger-actions.js';
import { REWARD_ACTIONS } from '../../src/modules/ledger/reward-rates.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function filesUnder(dir: string, ending: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(ending))
    .map((name) => join(dir, name));
}

/**
 * Action names written as SQL literals: `"action" = 'x'` (a filter or a partial index) and
 * `'action', 'x'` (a leg built in SQL); a name interpolated from the table (`'${...}'`) is not one.
 */
function sqlActionLiterals(text: string): string[] {
  return [...text.matchAll(/"action"\s*=\s*'([^'$]*)'|'action',\s*'([^'$]*)'/g)].map((match) => match[1] ?? match[2]!);
}

describe('ledger actions', () => {
  it('are names the ledger accepts, each once', () => {
    for (const action of LEDGER_ACTIONS) expect(action).toMatch(LEDGER_ACTION_FORMAT);
    expect(new Set(LEDGER_ACTIONS).size).toBe(LEDGER_ACTIONS.length);
  });

  it('include reward:<action> for every reward action, and keep the names stored in existing rows', () => {
    for (const action of REWARD_ACTIONS) expect(LEDGER_ACTIONS).toContain(rewardLedgerAction(action));
    expect(rewardLedgerAction('tagging')).toBe('reward:tagging');
    // Stored in every transfer row and matched by SQL: renaming one orphans the rows written before.
    expect(Object.values(LedgerAction).sort()).toEqual(
      ['bounty:claim', 'bounty:escrow', 'bridge_convert', 'community:royalty', 'community:unlock', 'community:unlock_fee', 'generate', 'grant', 'referral_commission', 'style_unlock', 'vision', 'wiki:query'],
    );
  });

  it('are the only ones the migrations SQL names', () => {
    const named = filesUnder('prisma/migrations', '.sql').flatMap((file) => sqlActionLiterals(readFileSync(join(ROOT, file), 'utf8')));
    expect(named).toContain('referral_commission');
    for (const action of named) expect(LEDGER_ACTIONS).toContain(action);
  });

  it('are not written as SQL literals in src outside the table', () => {
    const files = filesUnder('src', '.ts').filter((file) => !file.includes('generated'));
    const literals = files.flatMap((file) => sqlActionLiterals(readFileSync(join(ROOT, file), 'utf8')).map((action) => `${file}: ${action}`));
    expect(literals).toEqual([]);
  });
});
