// Spec "Media library": stock lists and their items, saving into the library; spec "Community":
// sharing a list, joining it, its members. Shapes are ours (docs/rest-api.md "Media: stock lists"). Every row
// is declared in src/modules/stock-lists/stock-lists.operations.ts.
import { restRoutesOf } from '../derive.js';
import { stockListOperations } from '../../src/modules/stock-lists/stock-lists.operations.js';

export const stockListsRoutes = restRoutesOf(stockListOperations);
