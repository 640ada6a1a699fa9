import { RequestInvalid } from '../problem/domain-errors.js';

/**
 * The fields of gRPC requests, for the features' request parsers (`<feature>.grpc-messages.ts`): each
 * turns a request into its use-case's input through the same parser as the REST query or body (so the
 * limits and formats are the same), with errors naming the proto fields. In proto3 an empty string,
 * zero or unspecified enum means "not given".
 */

/** A required string field; empty means missing. */
export function required(value: string | undefined, field: string): string {
  if (!value) throw new RequestInvalid(`${field} is required`, [{ field, message: 'is required' }]);
  return value;
}

/** A scalar field's value; proto3's empty string and zero mean "not given". */
export function given<T>(value: T | '' | 0 | null | undefined): T | undefined {
  return value === '' || value === 0 || value === null || value === undefined ? undefined : value;
}

/** An enum field; proto-loader gives a value outside the enum as its number, which is refused here. */
export function enumGiven(value: string | number | undefined, field: string): string | undefined {
  if (typeof value === 'number' && value !== 0) {
    throw new RequestInvalid(`${field}: ${value} is not a value of the enum`, [{ field, message: `${value} is not a value of the enum` }]);
  }
  return !value || typeof value !== 'string' || value.endsWith('_UNSPECIFIED') ? undefined : value;
}

export function tagsGiven(tags: string[] | undefined): string[] | undefined {
  return tags && tags.length > 0 ? tags : undefined;
}

/** Runs a REST parser and renames the fields its errors name to the proto's names. */
export function withProtoFields<T>(parse: () => T, names: Record<string, string>): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof RequestInvalid)) throw error;
    const errors = error.errors.map((entry) => ({ ...entry, field: names[entry.field] ?? entry.field }));
    throw new RequestInvalid(`Request is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, errors);
  }
}

/** The entries that are not undefined (the REST parsers are strict about unknown and undefined keys alike). */
export function compact<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}
