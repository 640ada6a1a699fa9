import { type SchemaObject, stringKeyword } from './keywords.js';

/** A JSON Schema type name. In a type list `number` means every number and `integer` only integers. */
export type JsonType = 'null' | 'boolean' | 'object' | 'array' | 'string' | 'number' | 'integer';

/** Every instance type: the type list of a schema without `type`. */
export const ALL_TYPES: readonly JsonType[] = ['null', 'boolean', 'object', 'array', 'string', 'number'];

const TYPE_NAMES = new Set<string>([...ALL_TYPES, 'integer']);

/** The type of a JSON value (`integer` for whole numbers). */
function typeOfValue(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/** The types listed by a node's `type` keyword, or undefined when it has none. */
export function declaredTypes(node: SchemaObject): JsonType[] | undefined {
  const single = stringKeyword(node, 'type');
  if (single !== undefined) return TYPE_NAMES.has(single) ? [single as JsonType] : [];
  if (!Array.isArray(node.type)) return undefined;
  return normaliseTypes(node.type.filter((name): name is JsonType => typeof name === 'string' && TYPE_NAMES.has(name)));
}

/** The types a node admits by `type`, `const` and `enum` alone. */
export function nodeTypes(node: SchemaObject): JsonType[] {
  let types: JsonType[] = declaredTypes(node) ?? [...ALL_TYPES];
  if ('const' in node) types = intersectTypes(types, [typeOfValue(node.const)]);
  if (Array.isArray(node.enum)) types = intersectTypes(types, normaliseTypes(node.enum.map(typeOfValue)));
  return types;
}

/** True when a type list admits every instance of type `type`. */
export function admitsType(types: readonly JsonType[], type: JsonType): boolean {
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

/** The types admitted by both lists (`number` and `integer` meet in `integer`). */
export function intersectTypes(left: readonly JsonType[], right: readonly JsonType[]): JsonType[] {
  const result = new Set<JsonType>();
  for (const type of left) {
    if (admitsType(right, type)) result.add(type);
    else if (type === 'number' && right.includes('integer')) result.add('integer');
  }
  return normaliseTypes([...result]);
}

/** Drops `integer` where `number` is present, so each instance type appears once. */
function normaliseTypes(types: readonly JsonType[]): JsonType[] {
  const unique = [...new Set(types)];
  return unique.includes('number') ? unique.filter((type) => type !== 'integer') : unique;
}

/** Lists types for messages: "string or null". */
export function describeTypes(unordered: readonly JsonType[]): string {
  const order: readonly JsonType[] = ['null', 'boolean', 'object', 'array', 'string', 'integer', 'number'];
  const types = [...unordered].sort((left, right) => order.indexOf(left) - order.indexOf(right));
  if (types.length === 0) return 'no type';
  return types.length === 1 ? types[0] : `${types.slice(0, -1).join(', ')} or ${types[types.length - 1]}`;
}
