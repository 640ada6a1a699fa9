import type { CompatibilityReport, Direction, SchemaChange } from './compatibility-report.js';
import { conjunctionAt } from './conjunction.js';
import { SchemaDocument } from './schema-document.js';
import { assertValidSchema } from './schema-validation.js';
import { createComparison } from './subschema.js';

const DIRECTIONS: readonly Direction[] = ['backward', 'forward', 'full'];

/** The changes found checking that every instance valid under `sub` is valid under `sup`. */
function subsetChanges(sub: SchemaDocument, sup: SchemaDocument): SchemaChange[] {
  const comparison = createComparison([sub, sup]);
  return comparison.check(conjunctionAt(sub.locate('')), sup.locate(''));
}

/** One change per code and pair of pointers; a change breaking in either direction stays breaking. */
function mergeChanges(changes: readonly SchemaChange[]): SchemaChange[] {
  const merged = new Map<string, SchemaChange>();
  for (const change of changes) {
    const key = `${change.code} ${change.old_pointer} ${change.new_pointer}`;
    const known = merged.get(key);
    if (known === undefined || (change.breaking && !known.breaking)) merged.set(key, change);
  }
  return [...merged.values()];
}

/**
 * Checks a change from `oldSchema` to `newSchema` (JSON Schema 2020-12) for compatibility in `direction`
 * and lists every change found, breaking or not. Throws InvalidSchemaError for an input that is not a
 * valid schema. Pure: no I/O, no state kept between calls.
 */
export function checkCompatibility(oldSchema: unknown, newSchema: unknown, direction: Direction): CompatibilityReport {
  if (!DIRECTIONS.includes(direction)) throw new TypeError(`direction must be one of ${DIRECTIONS.join(', ')}, not ${String(direction)}`);
  assertValidSchema(oldSchema, 'old');
  assertValidSchema(newSchema, 'new');
  const oldDoc = new SchemaDocument('old', oldSchema);
  const newDoc = new SchemaDocument('new', newSchema);
  const backward = direction === 'forward' ? [] : subsetChanges(oldDoc, newDoc);
  const forward = direction === 'backward' ? [] : subsetChanges(newDoc, oldDoc);
  const changes = mergeChanges([...backward, ...forward]);
  return { compatible: !changes.some((change) => change.breaking), changes };
}
