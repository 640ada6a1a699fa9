import { jsonEqual } from './json-equal.js';
import { type SchemaNode, isSchemaObject } from './keywords.js';
import type { SchemaDocument } from './schema-document.js';
import { walkSchema } from './schema-walk.js';

function refsIn(node: SchemaNode): string[] {
  const refs: string[] = [];
  walkSchema(node, '', (child) => {
    if (isSchemaObject(child) && typeof child.$ref === 'string') refs.push(child.$ref);
  });
  return refs;
}

/**
 * True when two nodes are deep-equal and every reference reachable from them designates deep-equal
 * nodes in both documents, so the two accept exactly the same instances.
 */
export function identicalSchemas(leftDoc: SchemaDocument, left: SchemaNode, rightDoc: SchemaDocument, right: SchemaNode): boolean {
  if (!jsonEqual(left, right)) return false;
  const pending = refsIn(left);
  const seen = new Set<string>();
  for (let ref = pending.pop(); ref !== undefined; ref = pending.pop()) {
    if (seen.has(ref)) continue;
    seen.add(ref);
    const leftPointer = leftDoc.resolveRef(ref);
    const rightPointer = rightDoc.resolveRef(ref);
    if (leftPointer === null || rightPointer === null) {
      if (leftPointer !== rightPointer) return false;
      continue;
    }
    const leftTarget = leftDoc.nodeAt(leftPointer);
    const rightTarget = rightDoc.nodeAt(rightPointer);
    if (leftTarget === undefined || rightTarget === undefined || !jsonEqual(leftTarget, rightTarget)) return false;
    pending.push(...refsIn(leftTarget));
  }
  return true;
}
