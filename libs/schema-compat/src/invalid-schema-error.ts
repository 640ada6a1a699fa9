import type { SchemaSide } from './schema-document.js';

/** A schema handed to the checker is not a valid JSON Schema 2020-12; `problems` says why. */
export class InvalidSchemaError extends Error {
  constructor(
    readonly schema: SchemaSide,
    readonly problems: readonly string[],
  ) {
    super(`the ${schema} schema is not a valid JSON Schema 2020-12: ${problems.join('; ')}`);
    this.name = 'InvalidSchemaError';
  }
}
