// Money (src/modules/ledger), the operator's side: grant API credits to an account, read and change
// reward rates and daily caps. Behind the admin token, like the other admin routes; the CLI uses
// them (`credits grant`, `rewards show|set`). The caller's own credits are GET /api/media/credits.
// Declared in src/modules/ledger/ledger.operations.ts.
import { restRoutesOf } from '../derive.js';
import { ledgerOperations } from '../../src/modules/ledger/ledger.operations.js';

export const ledgerRoutes = restRoutesOf(ledgerOperations);
