import type { z } from 'zod';
import { RequestInvalid } from './problem/domain-errors.js';

/** Parses `raw` with a zod schema (every body and query of the REST edge), or throws RequestInvalid naming each field. */
export function parseOrThrow<T extends z.ZodType>(schema: T, raw: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const errors = parsed.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ field: key, message: `unknown ${what} parameter '${key}'` }))
      : [{ field: issue.path.join('.') || what, message: issue.message }],
  );
  const subject = what.charAt(0).toUpperCase() + what.slice(1);
  throw new RequestInvalid(`${subject} is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, errors);
}
