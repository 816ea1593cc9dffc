// Prints the Pothos schema to schema.graphql (checked in; test/graphql/schema-drift.test.ts fails
// when it differs from the code). Run: npm run schema:print
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printedSchema } from '../src/graphql/print.js';

const target = fileURLToPath(new URL('../schema.graphql', import.meta.url));
writeFileSync(target, printedSchema());
console.log(`wrote ${target}`);
