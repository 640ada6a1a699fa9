// Generators for the property test: small JSON Schemas, mutations of them, and JSON values to try.
import fc from 'fast-check';
import { type SchemaNode, isSchemaObject } from './keywords.js';
import { walkSchema } from './schema-walk.js';

type SchemaRecord = Record<string, unknown>;

const KEYS = ['a', 'b', 'c', 'x-a'] as const;
const TYPES = ['null', 'boolean', 'integer', 'number', 'string', 'object', 'array'] as const;

/** Scalars the generated schemas and values share, so values often hit the schemas' boundaries. */
const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -3, max: 12 }),
  fc.constantFrom(0.5, 2.5, -1.5),
  fc.constantFrom('', 'a', 'b', 'ab', 'ba', 'abc', 'abcdef', 'A1'),
);

/** JSON values shaped like the generated schemas' instances. */
export const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    { arbitrary: scalar, weight: 4 },
    { arbitrary: fc.array(tie('value'), { maxLength: 3 }), weight: 1 },
    { arbitrary: fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 3, noNullPrototype: true }), weight: 2 },
  ),
})).value;

const small = fc.integer({ min: 0, max: 4 });
const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
const defined = (record: SchemaRecord): SchemaRecord =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));

/** Schemas from a small grammar of the keywords the checker reasons about; `$ref`s point at `#/$defs/d`. */
const schemaBody: fc.Arbitrary<SchemaNode> = fc.letrec<{ schema: SchemaNode }>((tie) => {
  const child = tie('schema');
  const stringSchema = fc
    .record({ minLength: optional(small), maxLength: optional(small), pattern: optional(fc.constantFrom('^a', '^[ab]*$')) })
    .map((keywords) => defined({ type: 'string', ...keywords }));
  const numberSchema = fc
    .record({
      type: fc.constantFrom('integer', 'number'),
      minimum: optional(fc.integer({ min: -2, max: 5 })),
      maximum: optional(fc.integer({ min: 0, max: 10 })),
      exclusiveMinimum: optional(fc.constantFrom(-1, 0, 0.5)),
      multipleOf: optional(fc.constantFrom(1, 2, 3, 0.5)),
    })
    .map(defined);
  const objectSchema = fc
    .record({
      properties: fc.dictionary(fc.constantFrom(...KEYS), child, { maxKeys: 2, noNullPrototype: true }),
      required: fc.subarray([...KEYS], { maxLength: 2 }),
      patternProperties: optional(
        fc.dictionary(fc.constantFrom('^x-', '^a', '^b'), child, { minKeys: 1, maxKeys: 2, noNullPrototype: true }),
      ),
      additionalProperties: optional(fc.oneof(fc.boolean(), child)),
      maxProperties: optional(small),
      dependentRequired: optional(fc.constantFrom({ a: ['b'] }, { b: ['a', 'c'] })),
      dependentSchemas: optional(child.map((schema) => ({ a: schema }))),
      propertyNames: optional(fc.constantFrom<SchemaNode>({ maxLength: 1 }, { pattern: '^[a-c]$' }, { enum: ['a', 'b'] })),
      minProperties: optional(fc.integer({ min: 0, max: 2 })),
    })
    .map((keywords) => defined({ type: 'object', ...keywords }));
  const arraySchema = fc
    .record({
      items: optional(child),
      prefixItems: optional(fc.array(child, { minLength: 1, maxLength: 2 })),
      minItems: optional(fc.integer({ min: 0, max: 2 })),
      maxItems: optional(fc.integer({ min: 0, max: 3 })),
      uniqueItems: optional(fc.boolean()),
      contains: optional(child),
      minContains: optional(fc.integer({ min: 0, max: 2 })),
    })
    // Ajv 8 accepts [] under prefixItems + contains (a bug), so the oracle would be wrong: never both.
    .map(({ prefixItems, ...keywords }) =>
      defined({ type: 'array', ...keywords, prefixItems: keywords.contains === undefined ? prefixItems : undefined }),
    );
  return {
    schema: fc.oneof(
      { depthSize: 'small', maxDepth: 3 },
      { arbitrary: fc.constantFrom<SchemaNode>(true, false, {}), weight: 1 },
      { arbitrary: fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 3 }).map((type) => ({ type })), weight: 2 },
      {
        arbitrary: fc
          .uniqueArray(scalar, { minLength: 1, maxLength: 4, selector: (value) => JSON.stringify(value) })
          .map((values) => ({ enum: values })),
        weight: 2,
      },
      { arbitrary: scalar.map((value) => ({ const: value })), weight: 1 },
      { arbitrary: stringSchema, weight: 3 },
      { arbitrary: numberSchema, weight: 3 },
      { arbitrary: objectSchema, weight: 3 },
      { arbitrary: arraySchema, weight: 2 },
      { arbitrary: fc.array(child, { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })), weight: 1 },
      { arbitrary: fc.array(child, { minLength: 1, maxLength: 2 }).map((allOf) => ({ allOf })), weight: 1 },
      { arbitrary: fc.array(child, { minLength: 1, maxLength: 2 }).map((oneOf) => ({ oneOf })), weight: 1 },
      { arbitrary: child.map((not) => ({ not })), weight: 1 },
      { arbitrary: fc.record({ if: child, then: child, else: optional(child) }).map(defined), weight: 1 },
      { arbitrary: fc.constant({ $ref: '#/$defs/d' }), weight: 1 },
    ),
  };
}).schema;

/** A root schema: its body with the one definition its references use (which may refer to itself). */
const schemaNode: fc.Arbitrary<SchemaNode> = fc
  .tuple(schemaBody, schemaBody)
  .map(([body, definition]) => (isSchemaObject(body) ? { ...body, $defs: { d: definition } } : body));

const NUMERIC = ['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems', 'maxProperties'];

/** One edit of a schema node in place, chosen by `choice`; most edits widen or narrow one keyword. */
function edit(node: SchemaRecord, choice: number, amount: number): void {
  const keys = Object.keys(node).filter((key) => key !== '$defs');
  const numeric = keys.filter((key) => NUMERIC.includes(key));
  switch (choice % 11) {
    case 0:
      if (keys.length > 0) delete node[keys[amount % keys.length]];
      break;
    case 1:
      if (numeric.length > 0) {
        const key = numeric[amount % numeric.length];
        const next = (node[key] as number) + (amount % 2 === 0 ? 1 : -1);
        node[key] = key.startsWith('min') || key.startsWith('max') ? Math.max(0, next) : next;
      }
      break;
    case 2:
      if (typeof node.type === 'string') node.type = [...new Set([node.type, 'null'])];
      else if (Array.isArray(node.type) && node.type.length > 1) node.type = node.type.slice(1);
      break;
    case 3:
      node.required = amount % 2 === 0 ? [...new Set([...((node.required as string[]) ?? []), KEYS[amount % KEYS.length]])] : [];
      break;
    case 4:
      node.additionalProperties = amount % 2 === 0;
      break;
    case 5:
      if (Array.isArray(node.enum))
        node.enum = amount % 2 === 0 && node.enum.length > 1 ? node.enum.slice(1) : [...new Set([...node.enum, amount])];
      break;
    case 6:
      if (typeof node.multipleOf === 'number') node.multipleOf = [1, 2, 4, 0.5][amount % 4];
      else if (node.type === 'integer' || node.type === 'number') node.multipleOf = [1, 2][amount % 2];
      break;
    case 7:
      for (const key of keys) delete node[key];
      break;
    case 9:
      node.anyOf = [{ ...node }, { type: 'null' }];
      for (const key of keys) if (key !== 'anyOf') delete node[key];
      break;
    case 10:
      node.uniqueItems = amount % 2 === 0;
      break;
    default:
      node.properties = {
        ...((node.properties as SchemaRecord) ?? {}),
        [KEYS[amount % KEYS.length]]: { type: ['string', 'integer'][amount % 2] },
      };
  }
}

/** A copy of `schema` with a few edits at random places (given by the pairs of numbers). */
function mutateSchema(schema: SchemaNode, edits: readonly [number, number, number][]): SchemaNode {
  const copy = structuredClone(schema) as SchemaNode;
  for (const [where, choice, amount] of edits) {
    const nodes: SchemaRecord[] = [];
    walkSchema(copy, '', (node) => {
      if (isSchemaObject(node)) nodes.push(node as SchemaRecord);
    });
    if (nodes.length > 0) edit(nodes[where % nodes.length], choice, amount);
  }
  return copy;
}

/** Pairs of schemas: identical, one edited from the other, or unrelated. */
export const schemaPair: fc.Arbitrary<[SchemaNode, SchemaNode]> = fc.oneof(
  { arbitrary: schemaNode.map((schema) => [schema, structuredClone(schema)] as [SchemaNode, SchemaNode]), weight: 1 },
  {
    arbitrary: fc
      .tuple(schemaNode, fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 3 }))
      .map(([schema, edits]) => [schema, mutateSchema(schema, edits)] as [SchemaNode, SchemaNode]),
    weight: 6,
  },
  { arbitrary: fc.tuple(schemaNode, schemaNode), weight: 2 },
);

/** The `enum` and `const` values a schema mentions: likely instances worth trying. */
export function mentionedValues(schema: SchemaNode): unknown[] {
  const values: unknown[] = [];
  walkSchema(schema, '', (node) => {
    if (!isSchemaObject(node)) return;
    if ('const' in node) values.push(node.const);
    if (Array.isArray(node.enum)) values.push(...node.enum);
  });
  return values;
}
