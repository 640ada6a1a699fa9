import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { RequestInvalid } from './problem/domain-errors.js';

/** Names of Object.prototype members: class-validator's whitelist does not see a field named like one. */
const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * class-validator with one gap closed: a body field named `constructor` (or `toString`, ...) is
 * taken for the DTO's own member and passes `forbidNonWhitelisted` unseen; it is refused here as
 * the unknown field it is.
 */
class StrictValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && value && typeof value === 'object' && !Array.isArray(value)) {
      const unknown = Object.keys(value).filter((key) => PROTOTYPE_NAMES.has(key));
      if (unknown.length > 0) {
        const errors = unknown.map((key) => ({ field: key, message: `unknown field '${key}'` }));
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
