/** A JSON Schema that is an object (boolean schemas are handled apart). */
export type SchemaObject = Readonly<Record<string, unknown>>;

/** Any JSON Schema value (read as 2020-12): `true`, `false` or an object. */
export type SchemaNode = boolean | SchemaObject;

/**
 * The validation keywords the checker decides, in 2020-12 spelling (other dialects are translated to
 * these first, see dialect-translation.ts). `then`, `else`, `minContains` and `maxContains` act only
 * beside `if` and `contains`, so they are not listed.
 */
export const MODELLED_KEYWORDS = [
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'maxItems',
  'minItems',
  'uniqueItems',
  'contains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'dependentSchemas',
  'properties',
  'patternProperties',
  'additionalProperties',
  'propertyNames',
  'items',
  'prefixItems',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  '$ref',
] as const;

/**
 * Validation keywords the checker does not decide. One of them on the side that must accept (the new
 * schema for backward) is a breaking UNDECIDABLE_KEYWORD change naming it, never "compatible"; on the
 * other side ignoring it only widens what that side is taken to accept, which is safe. `$dynamicRef`
 * and `$recursiveRef` remain only in schemas with more than one resource (an `$id` below the root):
 * elsewhere they are translated to `$ref`.
 */
export const UNSUPPORTED_KEYWORDS = ['$dynamicRef', '$recursiveRef', 'unevaluatedItems', 'unevaluatedProperties'] as const;

/**
 * Keywords that constrain instances. Everything else never changes which instances are valid: the
 * annotations (title, description, default, examples, deprecated, readOnly, writeOnly, $comment,
 * contentMediaType, contentEncoding, contentSchema), the core keywords that only name or locate schemas
 * ($schema, $id, $anchor, $dynamicAnchor, $recursiveAnchor, $vocabulary, $defs, definitions), and
 * keywords no dialect defines (`x-foo`, `nullable`): validators ignore them, so they are annotations.
 */
const ASSERTION_KEYWORDS = new Set<string>([...MODELLED_KEYWORDS, ...UNSUPPORTED_KEYWORDS]);

/** True for a value usable as a JSON Schema object. */
export function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for `true`, `false` or a schema object. */
export function isSchemaNode(value: unknown): value is SchemaNode {
  return typeof value === 'boolean' || isSchemaObject(value);
}

/** True when the schema accepts every instance: `true`, `{}` or only annotations. */
export function acceptsEverything(node: SchemaNode): boolean {
  if (typeof node === 'boolean') return node;
  return !Object.keys(node).some((key) => ASSERTION_KEYWORDS.has(key));
}

/** A numeric keyword's value, if present. */
export function numberKeyword(node: SchemaObject, keyword: string): number | undefined {
  const value = node[keyword];
  return typeof value === 'number' ? value : undefined;
}

/** A string keyword's value, if present. */
export function stringKeyword(node: SchemaObject, keyword: string): string | undefined {
  const value = node[keyword];
  return typeof value === 'string' ? value : undefined;
}

/** A keyword holding a list of strings (`required`), empty when absent. */
export function stringListKeyword(node: SchemaObject, keyword: string): string[] {
  const value = node[keyword];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** A keyword holding a schema (`items`, `not`, `additionalProperties`), if present. */
export function schemaKeyword(node: SchemaObject, keyword: string): SchemaNode | undefined {
  const value = node[keyword];
  return isSchemaNode(value) ? value : undefined;
}

/** A keyword holding a list of schemas (`allOf`, `prefixItems`), empty when absent. */
export function schemaListKeyword(node: SchemaObject, keyword: string): SchemaNode[] {
  const value = node[keyword];
  return Array.isArray(value) ? value.filter(isSchemaNode) : [];
}

/** A keyword holding a map of schemas (`properties`, `$defs`), empty when absent. */
export function schemaMapKeyword(node: SchemaObject, keyword: string): [string, SchemaNode][] {
  const value = node[keyword];
  if (!isSchemaObject(value)) return [];
  return Object.entries(value).filter((entry): entry is [string, SchemaNode] => isSchemaNode(entry[1]));
}

/** A copy of `node` without the given keywords. */
export function withoutKeywords(node: SchemaObject, keywords: readonly string[]): SchemaObject {
  const copy: Record<string, unknown> = { ...node };
  for (const keyword of keywords) delete copy[keyword];
  return copy;
}
