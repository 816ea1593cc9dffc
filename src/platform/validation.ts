// Edge validation with zod: the first problem becomes a 400 that names the field and what was expected.
import type { z } from 'zod';
import { InvalidInput } from './errors.js';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.map(String).join('.');
  // Messages that already start with the field's name ("url is required ...") stand as they are.
  const message = !field || issue.message.startsWith(`${field} `) ? issue.message : `${field}: ${issue.message}`;
  throw new InvalidInput(message, field || undefined);
}
