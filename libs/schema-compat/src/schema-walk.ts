import { childPointer } from './json-pointer.js';
import { type SchemaNode, isSchemaNode, isSchemaObject } from './keywords.js';

/** Keywords whose value is one schema. */
export const SCHEMA_SINGLES = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
/** Keywords whose value is a list of schemas. */
export const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords whose value maps names to schemas. */
export const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/** Calls `visit` for `node` and every schema nested in it (not inside `enum`, `const` or annotations). */
export function walkSchema(node: SchemaNode, pointer: string, visit: (node: SchemaNode, pointer: string) => void): void {
  visit(node, pointer);
  if (!isSchemaObject(node)) return;
  for (const keyword of SCHEMA_SINGLES) {
    const child = node[keyword];
    if (isSchemaNode(child)) walkSchema(child, childPointer(pointer, keyword), visit);
  }
  for (const keyword of SCHEMA_LISTS) {
    const list = node[keyword];
    if (Array.isArray(list))
      list.forEach((child, index) => isSchemaNode(child) && walkSchema(child, childPointer(pointer, keyword, index), visit));
  }
  for (const keyword of SCHEMA_MAPS) {
    const map = node[keyword];
    if (!isSchemaObject(map)) continue;
    for (const [name, child] of Object.entries(map))
      if (isSchemaNode(child)) walkSchema(child, childPointer(pointer, keyword, name), visit);
  }
}
