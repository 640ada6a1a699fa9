import ajvModule, { type KeywordCxt, type KeywordDefinition } from 'ajv';
import stringify from 'safe-stable-stringify';

const { _, str } = ajvModule;

/**
 * Two of Ajv's keywords in linear time, for publishers' schemas run on anyone's input (and a handler's output):
 * - `uniqueItems`: Ajv compares every item with every other unless the schema types the items as scalars
 *   (`{ type: 'array', uniqueItems: true }` with object items, or no `items` type at all): against a request of 180 KB
 *   of distinct objects that held the process's event loop 4 s, against the 1 MiB a request may carry minutes.
 * - `enum`: Ajv compares a value with each allowed one in turn: an enum of 5,000 part numbers against a request of
 *   100,000 of them (1.2 MB) held the event loop 3.0 s, every other request waiting.
 * Here each value is written once as JSON with its keys in sorted order, and equal texts are equal values: in JSON
 * Schema's sense, values are equal when they are the same JSON value (key order aside; numbers by value — 1 and 1.0 are
 * one number once parsed). An enum's allowed values are indexed once per schema. The errors are Ajv's own (keyword,
 * message and params). Written by hand: the keywords are Ajv's extension point, and the key is safe-stable-stringify's.
 */

/** What Ajv's standalone code (the examples check's cache of compiled validators) requires to find these functions. */
export const SCHEMA_KEYWORDS_MODULE = 'skill-registry:schema-keywords';

/** A JSON value's text with sorted keys: equal texts for equal JSON values. */
function keyOf(value: unknown): string {
  return stringify(value) ?? 'undefined';
}

/** The indices of the first two equal items of `items`, earlier first; null when all differ. */
export function duplicateItems(items: readonly unknown[]): [number, number] | null {
  const seen = new Map<string, number>();
  for (let index = 0; index < items.length; index++) {
    const key = keyOf(items[index]);
    const earlier = seen.get(key);
    if (earlier !== undefined) return [earlier, index];
    seen.set(key, index);
  }
  return null;
}

/** Enums indexed by their array in the compiled schema (the same array on every call). */
const enumIndexes = new WeakMap<readonly unknown[], Set<string>>();

/** Whether `value` is one of `allowed` (an enum's values). */
export function inEnum(allowed: readonly unknown[], value: unknown): boolean {
  let index = enumIndexes.get(allowed);
  if (!index) {
    index = new Set(allowed.map(keyOf));
    enumIndexes.set(allowed, index);
  }
  return index.has(keyOf(value));
}

/** duplicateItems and inEnum as the generated code refers to them (by module name in standalone code). */
const runtimeCode = {
  duplicateItems: _`require(${SCHEMA_KEYWORDS_MODULE}).duplicateItems`,
  inEnum: _`require(${SCHEMA_KEYWORDS_MODULE}).inEnum`,
};

const uniqueItems: KeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  error: {
    message: ({ params: { i, j } }) => str`must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
    params: ({ params: { i, j } }) => _`{i: ${i}, j: ${j}}`,
  },
  code(cxt: KeywordCxt) {
    if (cxt.schema !== true) return;
    const pair = cxt.gen.const(
      'duplicate',
      _`${cxt.gen.scopeValue('func', { ref: duplicateItems, code: runtimeCode.duplicateItems })}(${cxt.data})`,
    );
    cxt.setParams({ i: _`${pair}[1]`, j: _`${pair}[0]` });
    cxt.fail(_`${pair} !== null`);
  },
};

const enumKeyword: KeywordDefinition = {
  keyword: 'enum',
  schemaType: 'array',
  error: {
    message: 'must be equal to one of the allowed values',
    params: ({ schemaCode }) => _`{allowedValues: ${schemaCode}}`,
  },
  code(cxt: KeywordCxt) {
    if ((cxt.schema as unknown[]).length === 0) throw new Error('enum must have non-empty array');
    const has = cxt.gen.scopeValue('func', { ref: inEnum, code: runtimeCode.inEnum });
    cxt.fail(_`!${has}(${cxt.schemaCode}, ${cxt.data})`);
  },
};

/** Replaces Ajv's `uniqueItems` and `enum` with the linear ones above; every validator of publishers' schemas uses it. */
export function linearKeywords<A extends { removeKeyword(keyword: string): unknown; addKeyword(definition: KeywordDefinition): unknown }>(
  ajv: A,
): A {
  for (const definition of [uniqueItems, enumKeyword]) {
    ajv.removeKeyword(definition.keyword as string);
    ajv.addKeyword(definition);
  }
  return ajv;
}
