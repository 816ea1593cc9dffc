// Operator routes behind the admin token (our design; the spec has no admin surface). The CLI uses
// them. Declared in src/modules/accounts/accounts.operations.ts.
import { restRoutesOf } from '../derive.js';
import { accountsOperations } from '../../src/modules/accounts/accounts.operations.js';

export const accountsRoutes = restRoutesOf(accountsOperations);
