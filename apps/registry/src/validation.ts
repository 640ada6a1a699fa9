import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import type { z } from 'zod';
import { RequestInvalid } from './problem/domain-errors.js';

/** Names of Object.prototype members: class-validator's whitelist does not see a field named like one. */
const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * class-validator with two gaps closed: a body field named `constructor` (or `toString`, ...) is
 * taken for the DTO's own member and passes `forbidNonWhitelisted` unseen, and `@IsOptional()`
 * accepts `null` for a string field (a deprecation with `"version": null` deprecated every version).
 * Both are refused here.
 */
class StrictValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && this.toValidate(metadata) && value && typeof value === 'object' && !Array.isArray(value)) {
      const entries = Object.entries(value);
      const errors = [
        ...entries.filter(([key]) => PROTOTYPE_NAMES.has(key)).map(([key]) => ({ field: key, message: `unknown field '${key}'` })),
        // @IsOptional() reads null as "absent"; no field of these bodies is nullable, so null is a mistake, as the schema says.
        ...entries
          .filter(([, item]) => item === null)
          .map(([key]) => ({ field: key, message: 'must not be null (omit the field instead)' })),
      ];
      if (errors.length > 0) {
        throw new RequestInvalid(`Request is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, errors);
      }
    }
    return super.transform(value, metadata);
  }
}

/** Request DTO validation: unknown fields and wrong types are refused with every problem listed. */
export function createValidationPipe(): ValidationPipe {
  return new StrictValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => {
      const flat = flatten(errors);
      return new RequestInvalid(`Request is invalid: ${flat.map((e) => `${e.field}: ${e.message}`).join('; ')}`, flat);
    },
  });
}

function flatten(errors: ValidationError[], prefix = ''): { field: string; message: string }[] {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({
      field,
      message: message.startsWith('property ') ? `unknown field '${error.property}'` : message,
    }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/** Parses `raw` with a zod schema (bodies and queries on hot or free-form paths), or throws RequestInvalid naming each field. */
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
