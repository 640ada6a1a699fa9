/**
 * Whether a JSON Schema can be sent to OpenAI function calling with `strict: true` as it is.
 *
 * OpenAI's Structured Outputs accept a subset of JSON Schema ("Supported schemas" in the
 * structured-outputs guide): the root is an object (not `anyOf`); every object sets
 * `additionalProperties: false` and lists every property in `required`; types are string, number,
 * integer, boolean, null, object, array, enum/const and `anyOf`; the only validation keywords are
 * `pattern` and `format` (a fixed list) for strings, `minimum`/`maximum`/`exclusiveMinimum`/
 * `exclusiveMaximum`/`multipleOf` for numbers and `minItems`/`maxItems` for arrays; `$defs` and
 * `$ref` are allowed; at most 10 levels of nesting, 5000 properties and 1000 enum values.
 *
 * The registry never rewrites a skill's schema to fit (making optional fields required changes what
 * the skill accepts): a schema that does not fit is exported with `strict: false`, and the reasons
 * are reported so the skill's author can tighten it.
 */

const ANNOTATIONS = new Set(['description', 'title']);
const STRUCTURE = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
]);
const STRING_KEYWORDS = new Set(['pattern', 'format']);
const NUMBER_KEYWORDS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']);
const ARRAY_KEYWORDS = new Set(['minItems', 'maxItems']);
const ROOT_ONLY = new Set(['$schema', '$id']);
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);

const OPENAI_STRICT_LIMITS = { maxDepth: 10, maxProperties: 5000, maxEnumValues: 1000 } as const;

/** Why `schema` cannot be used with `strict: true` (empty when it can). */
export function openAiStrictViolations(schema: Record<string, unknown>): string[] {
  const violations: string[] = [];
  const counters = { properties: 0 };
  if (schema.type !== 'object') violations.push('/: the root must be an object schema');
  if ('anyOf' in schema) violations.push('/: the root must not be anyOf');
  visit(schema, '', 0, true, violations, counters);
  if (counters.properties > OPENAI_STRICT_LIMITS.maxProperties) {
    violations.push(`/: ${counters.properties} properties in total (at most ${OPENAI_STRICT_LIMITS.maxProperties})`);
  }
  return violations;
}

function visit(node: unknown, pointer: string, depth: number, root: boolean, violations: string[], counters: { properties: number }): void {
  const at = pointer || '/';
  if (node === true || node === false) {
    violations.push(`${at}: boolean schemas are not supported`);
    return;
  }
  if (node === null || typeof node !== 'object' || Array.isArray(node)) {
    violations.push(`${at}: not a schema object`);
    return;
  }
  const schema = node as Record<string, unknown>;
  if (depth > OPENAI_STRICT_LIMITS.maxDepth) violations.push(`${at}: nested deeper than ${OPENAI_STRICT_LIMITS.maxDepth} levels`);

  const types = typeList(schema.type);
  for (const type of types) if (!TYPES.has(type)) violations.push(`${at}: type '${type}' is not supported`);
  for (const keyword of Object.keys(schema)) {
    if (ANNOTATIONS.has(keyword) || STRUCTURE.has(keyword)) continue;
    if (root && ROOT_ONLY.has(keyword)) continue;
    if (STRING_KEYWORDS.has(keyword) && (types.includes('string') || types.length === 0)) continue;
    if (NUMBER_KEYWORDS.has(keyword) && (types.includes('number') || types.includes('integer') || types.length === 0)) continue;
    if (ARRAY_KEYWORDS.has(keyword) && (types.includes('array') || types.length === 0)) continue;
    violations.push(`${at}: keyword '${keyword}' is not supported`);
  }
  if (typeof schema.format === 'string' && !FORMATS.has(schema.format))
    violations.push(`${at}: format '${schema.format}' is not supported`);
  if (Array.isArray(schema.enum) && schema.enum.length > OPENAI_STRICT_LIMITS.maxEnumValues) {
    violations.push(`${at}: enum has ${schema.enum.length} values (at most ${OPENAI_STRICT_LIMITS.maxEnumValues})`);
  }

  const isObject = types.includes('object') || (types.length === 0 && 'properties' in schema);
  if (isObject) checkObject(schema, at, violations);
  if (schema.properties && typeof schema.properties === 'object') {
    for (const [key, child] of Object.entries(schema.properties as Record<string, unknown>)) {
      counters.properties++;
      visit(child, `${pointer}/properties/${escape(key)}`, depth + 1, false, violations, counters);
    }
  }
  if ('items' in schema) visit(schema.items, `${pointer}/items`, depth + 1, false, violations, counters);
  if (Array.isArray(schema.anyOf)) {
    schema.anyOf.forEach((branch, index) => visit(branch, `${pointer}/anyOf/${index}`, depth + 1, false, violations, counters));
  }
  for (const definitions of ['$defs', 'definitions'] as const) {
    const entries = schema[definitions];
    if (!entries || typeof entries !== 'object') continue;
    for (const [key, child] of Object.entries(entries as Record<string, unknown>)) {
      visit(child, `${pointer}/${definitions}/${escape(key)}`, depth + 1, false, violations, counters);
    }
  }
}

function checkObject(schema: Record<string, unknown>, at: string, violations: string[]): void {
  if (schema.additionalProperties !== false) violations.push(`${at}: additionalProperties must be false`);
  const properties = schema.properties && typeof schema.properties === 'object' ? Object.keys(schema.properties) : [];
  const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]) : []);
  const optional = properties.filter((key) => !required.has(key));
  if (optional.length > 0) violations.push(`${at}: every property must be required (optional: ${optional.join(', ')})`);
}

function typeList(type: unknown): string[] {
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((entry): entry is string => typeof entry === 'string');
  return [];
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
