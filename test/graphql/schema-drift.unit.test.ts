// schema.graphql and the codegen output are checked in; these fail when the code has moved on
// without `npm run codegen`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from '@graphql-codegen/cli';
import { describe, expect, it } from 'vitest';
import { printedSchema } from '../../src/graphql/print.js';
import codegenConfig from '../../codegen.ts';
import { declaredOperationsText } from '../../rest-shim/derive.js';

const root = join(import.meta.dirname, '..', '..');

describe('checked-in generated files', () => {
  it('schema.graphql matches the Pothos schema', () => {
    expect(readFileSync(join(root, 'schema.graphql'), 'utf8'), 'run `npm run codegen`').toBe(printedSchema());
  });

  it('rest-shim/operations/declared.graphql holds the documents the declared operations make', async () => {
    expect(readFileSync(join(root, 'rest-shim/operations/declared.graphql'), 'utf8'), 'run `npm run codegen`').toBe(await declaredOperationsText());
  });

  it('the codegen output matches schema.graphql and the operations', { timeout: 120_000 }, async () => {
    // generate(config, false) returns the files without writing them.
    const outputs: Array<{ filename: string; content: string }> = await generate({ ...codegenConfig, cwd: root, silent: true }, false);
    expect(outputs.length).toBeGreaterThanOrEqual(4);
    for (const output of outputs) {
      const path = join(root, output.filename.replace(root, ''));
      expect(readFileSync(path, 'utf8'), `${output.filename} is stale: run \`npm run codegen\``).toBe(output.content);
    }
  });
});
