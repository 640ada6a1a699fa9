// Test support: JSON values shaped after a set of schemas (their property names and listed values), to
// look for an instance one side accepts and the other rejects.
import fc from 'fast-check';

const SCALARS: readonly unknown[] = [
  null,
  true,
  false,
  0,
  1,
  -1,
  1.5,
  0.5,
  10,
  10.5,
  11,
  20,
  '',
  'x',
  'abcd',
  'abcdefghijk',
  'A',
  'a',
  'b',
];
const NAME_KEYWORDS = new Set(['properties', 'patternProperties', 'dependencies', 'dependentRequired', 'dependentSchemas']);

/** Property names and listed values mentioned anywhere in the schemas. */
function mentions(value: unknown, names: Set<string>, values: unknown[], keyword?: string): void {
  if (Array.isArray(value)) {
    for (const item of value) {
      if (typeof item === 'string' && (keyword === 'required' || keyword === 'dependency')) names.add(item);
      mentions(item, names, values, keyword === 'enum' ? 'enum' : undefined);
    }
    return;
  }
  if (typeof value !== 'object' || value === null) {
    if (keyword === 'enum' || keyword === 'const') values.push(value);
    return;
  }
  for (const [key, child] of Object.entries(value)) {
    if (keyword !== undefined && NAME_KEYWORDS.has(keyword)) {
      names.add(key);
      mentions(child, names, values, Array.isArray(child) ? 'dependency' : undefined);
    } else mentions(child, names, values, key);
  }
}

/** `count` values, reproducible for a given seed, that use the schemas' names and values. */
export function sampleInstances(schemas: readonly unknown[], count: number, seed: number): unknown[] {
  const names = new Set(['other', 'x-a', 'long name']);
  const values: unknown[] = [];
  for (const schema of schemas) mentions(schema, names, values);
  const scalar = fc.constantFrom(...SCALARS, ...values);
  const value = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth: 3 },
      { arbitrary: scalar, weight: 3 },
      { arbitrary: fc.array(tie('value'), { maxLength: 4 }), weight: 2 },
      { arbitrary: fc.dictionary(fc.constantFrom(...names), tie('value'), { maxKeys: 4, noNullPrototype: true }), weight: 3 },
    ),
  })).value;
  return [...SCALARS, ...values, ...fc.sample(value, { numRuns: count, seed })];
}
