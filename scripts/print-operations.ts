// Writes the GraphQL documents of the REST rows made from operation declarations to
// rest-shim/operations/declared.graphql, for codegen's typed client (the shim builds the same text
// at start; test/rest/declared-operations.test.ts fails when the file drifts). Run: npm run codegen
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { declaredOperationsText } from '../rest-shim/derive.js';

const target = fileURLToPath(new URL('../rest-shim/operations/declared.graphql', import.meta.url));
writeFileSync(target, await declaredOperationsText());
console.log(`wrote ${target}`);
