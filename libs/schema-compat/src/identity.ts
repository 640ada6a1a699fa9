import { jsonEqual } from './json-equal.js';
import { type SchemaNode, isSchemaNode, isSchemaObject } from './keywords.js';
import type { SchemaDocument } from './schema-document.js';
import { SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_SINGLES, walkSchema } from './schema-walk.js';

/** Keywords that never change which instances are valid, and definitions reached only through `$ref`. */
const IGNORED = new Set([
  'title',
  'description',
  'examples',
  'default',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$defs',
  'definitions',
]);

function refsIn(node: SchemaNode): string[] {
  const refs: string[] = [];
  walkSchema(node, '', (child) => {
    if (isSchemaObject(child) && typeof child.$ref === 'string') refs.push(child.$ref);
  });
  return refs;
}

function listEqual(left: unknown, right: unknown): boolean {
  if (!Array.isArray(left) || !Array.isArray(right)) return jsonEqual(left, right);
  return left.length === right.length && left.every((item, index) => schemaValueEqual(item, right[index]));
}

function mapEqual(left: unknown, right: unknown): boolean {
  if (!isSchemaObject(left) || !isSchemaObject(right)) return jsonEqual(left, right);
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => key in right && schemaValueEqual(left[key], right[key]));
}

function schemaValueEqual(left: unknown, right: unknown): boolean {
  return isSchemaNode(left) && isSchemaNode(right) ? schemaEqual(left, right) : jsonEqual(left, right);
}

/**
 * References whose target depends on the path by which the schema was reached (its dynamic scope): two
 * equal nodes holding one may still accept different instances.
 */
const DYNAMIC_REFERENCES = ['$dynamicRef', '$recursiveRef'];

/**
 * Equality of two schemas as validators: annotations and `$defs` are ignored at every level. Nodes with
 * a dynamic reference are never taken as equal (checkCompatibility answers equal documents itself).
 */
function schemaEqual(left: SchemaNode, right: SchemaNode): boolean {
  if (!isSchemaObject(left) || !isSchemaObject(right)) return left === right;
  if (DYNAMIC_REFERENCES.some((keyword) => keyword in left || keyword in right)) return false;
  const leftKeys = Object.keys(left).filter((key) => !IGNORED.has(key));
  const rightKeys = Object.keys(right).filter((key) => !IGNORED.has(key));
  if (leftKeys.length !== rightKeys.length) return false;
  return leftKeys.every((key) => {
    if (!(key in right)) return false;
    if (SCHEMA_SINGLES.includes(key)) return schemaValueEqual(left[key], right[key]);
    if (SCHEMA_LISTS.includes(key)) return listEqual(left[key], right[key]);
    if (SCHEMA_MAPS.includes(key)) return mapEqual(left[key], right[key]);
    return jsonEqual(left[key], right[key]);
  });
}

/**
 * True when two nodes are equal as validators and every reference reachable from them designates
 * equal nodes in both documents, so the two accept exactly the same instances.
 */
export function identicalSchemas(leftDoc: SchemaDocument, left: SchemaNode, rightDoc: SchemaDocument, right: SchemaNode): boolean {
  if (!schemaEqual(left, right)) return false;
  const pending = refsIn(left);
  const seen = new Set<string>();
  for (let ref = pending.pop(); ref !== undefined; ref = pending.pop()) {
    if (seen.has(ref)) continue;
    seen.add(ref);
    const leftPointer = leftDoc.resolveRef(ref);
    const rightPointer = rightDoc.resolveRef(ref);
    if (leftPointer === null || rightPointer === null) {
      // Equal remote references name the same schema; an unresolved one into either document may not.
      if (leftPointer !== rightPointer || leftDoc.refersInside(ref) || rightDoc.refersInside(ref)) return false;
      continue;
    }
    const leftTarget = leftDoc.nodeAt(leftPointer);
    const rightTarget = rightDoc.nodeAt(rightPointer);
    if (leftTarget === undefined || rightTarget === undefined || !schemaEqual(leftTarget, rightTarget)) return false;
    pending.push(...refsIn(leftTarget));
  }
  return true;
}
