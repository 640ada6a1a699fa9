import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { RequestInvalid } from './problem/domain-errors.js';

/** Request DTO validation: unknown fields and wrong types are refused with every problem listed. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
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
