import type { SchemaSide } from './schema-document.js';

/**
 * A schema handed to the checker is not one it can read: not a valid schema of its dialect (draft-07,
 * 2019-09, 2020-12 when `$schema` is absent, ...), or a `$schema` it does not read. `problems` says why.
 */
export class InvalidSchemaError extends Error {
  constructor(
    readonly schema: SchemaSide,
    readonly problems: readonly string[],
    /** The dialect the schema was read in, when its `$schema` named one the checker reads. */
    readonly dialect?: string,
  ) {
    super(`the ${schema} schema is not a valid JSON Schema${dialect === undefined ? '' : ` ${dialect}`}: ${problems.join('; ')}`);
    this.name = 'InvalidSchemaError';
  }
}
