import { printSchema } from 'graphql';
import { schema } from './schema.js';

export function printedSchema(): string {
  return `# Generated from the Pothos schema by \`npm run schema:print\`; do not edit by hand.\n\n${printSchema(schema)}\n`;
}
