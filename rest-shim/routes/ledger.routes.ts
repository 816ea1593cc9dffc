// Money's REST rows: the operator's grants and reward settings (the caller's own credits are GET
// /api/media/credits), declared in src/modules/ledger/ledger.operations.ts.
import { restRoutesOf } from '../derive.js';
import { ledgerOperations } from '../../src/modules/ledger/ledger.operations.js';

export const ledgerRoutes = restRoutesOf(ledgerOperations);
