// npm run docs:generate: writes the generated parts of docs/ (scripts/docs-blocks.ts says which and how).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatedPages, ROOT } from './docs-blocks.js';

for (const { page, current, expected } of generatedPages()) {
  if (current === expected) {
    console.log(`${page}: up to date`);
    continue;
  }
  writeFileSync(join(ROOT, page), expected);
  console.log(`${page}: written`);
}
