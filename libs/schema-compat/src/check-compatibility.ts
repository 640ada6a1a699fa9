import type { CompatibilityReport, Direction, SchemaChange } from './compatibility-report.js';
import { conjunctionAt } from './conjunction.js';
import { jsonEqual } from './json-equal.js';
import { relocateChange } from './report-pointers.js';
import { SchemaDocument } from './schema-document.js';
import { readSchema } from './schema-reading.js';
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
 * Checks a change from `oldSchema` to `newSchema` for compatibility in `direction` and lists every change
 * found, breaking or not, at pointers of the schemas as written. Each schema is read in the dialect its
 * `$schema` names (draft-06, draft-07, 2019-09, 2020-12; 2020-12 when absent). Throws InvalidSchemaError
 * for an input that is not a valid schema of its dialect. Pure: no I/O, no state kept between calls.
 */
export function checkCompatibility(oldSchema: unknown, newSchema: unknown, direction: Direction): CompatibilityReport {
  if (!DIRECTIONS.includes(direction)) throw new TypeError(`direction must be one of ${DIRECTIONS.join(', ')}, not ${String(direction)}`);
  const oldRead = readSchema(oldSchema, 'old');
  const newRead = readSchema(newSchema, 'new');
  // Equal documents accept the same instances, whatever keywords they hold.
  if (jsonEqual(oldRead.root, newRead.root)) return { compatible: true, changes: [] };
  const oldDoc = new SchemaDocument('old', oldRead.root);
  const newDoc = new SchemaDocument('new', newRead.root);
  const backward = direction === 'forward' ? [] : subsetChanges(oldDoc, newDoc);
  const forward = direction === 'backward' ? [] : subsetChanges(newDoc, oldDoc);
  const changes = mergeChanges([...backward, ...forward]).map((change) => relocateChange(change, oldRead.pointers, newRead.pointers));
  return { compatible: !changes.some((change) => change.breaking), changes };
}
