/**
 * Which way a schema change must stay compatible: `backward` when every instance valid under the old
 * schema must stay valid under the new one (input schemas), `forward` when every instance valid under
 * the new schema must be valid under the old one (output schemas), `full` for both.
 */
export type Direction = 'backward' | 'forward' | 'full';

/** One difference between the schemas, located by JSON pointer in each. */
export interface SchemaChange {
  /** Stable identifier of the kind of change, e.g. `REQUIRED_ADDED`. */
  code: string;
  /** True when this change makes the schemas incompatible in the checked direction. */
  breaking: boolean;
  /** Where the change sits in the old schema (a JSON pointer; `''` is the root). */
  old_pointer: string;
  /** Where the change sits in the new schema. */
  new_pointer: string;
  /** What changed and what it means for instances, for a person to act on. */
  message: string;
}

/** The verdict of a compatibility check with every change found. */
export interface CompatibilityReport {
  compatible: boolean;
  changes: SchemaChange[];
}
