import ajvModule, { type KeywordCxt, type KeywordDefinition } from 'ajv';
import stringify from 'safe-stable-stringify';

const { _, str } = ajvModule;

/**
 * `uniqueItems` in linear time. Ajv checks it by comparing every item with every other one unless the schema types
 * the items as scalars (`{ type: 'array', uniqueItems: true }` with object items, or no `items` type at all): against
 * a request of 180 KB of distinct objects that held the process's event loop 4 s, against the 1 MiB a request may
 * carry about two minutes — and the schemas are publishers' while the input is anyone's (and an output a handler's).
 * Here each item is written once as JSON with its keys in sorted order, and equal texts are equal items: in JSON
 * Schema's sense, items are equal when they are the same JSON value (key order aside; numbers by value — 1 and 1.0
 * are one number once parsed). The error is Ajv's own (keyword, message and params `{ i, j }`).
 * Written by hand: the keyword is Ajv's extension point, and the key is safe-stable-stringify's.
 */

/** What Ajv's standalone code (the examples check's cache of compiled validators) requires to find duplicateItems. */
export const SCHEMA_UNIQUE_ITEMS_MODULE = 'skill-registry:unique-items';

/** The indices of the first two equal items of `items`, earlier first; null when all differ. */
export function duplicateItems(items: readonly unknown[]): [number, number] | null {
  const seen = new Map<string, number>();
  for (let index = 0; index < items.length; index++) {
    const key = stringify(items[index]) ?? 'undefined';
    const earlier = seen.get(key);
    if (earlier !== undefined) return [earlier, index];
    seen.set(key, index);
  }
  return null;
}

const uniqueItems: KeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  error: {
    message: ({ params: { i, j } }) => str`must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
    params: ({ params: { i, j } }) => _`{i: ${i}, j: ${j}}`,
  },
  code(cxt: KeywordCxt) {
    const { gen, data, schema } = cxt;
    if (schema !== true) return;
    const find = gen.scopeValue('func', { ref: duplicateItems, code: _`require(${SCHEMA_UNIQUE_ITEMS_MODULE}).duplicateItems` });
    const pair = gen.const('duplicate', _`${find}(${data})`);
    cxt.setParams({ i: _`${pair}[1]`, j: _`${pair}[0]` });
    cxt.fail(_`${pair} !== null`);
  },
};

/** Replaces Ajv's `uniqueItems` with the linear one above; every validator of publishers' schemas uses it. */
export function linearUniqueItems<
  A extends { removeKeyword(keyword: string): unknown; addKeyword(definition: KeywordDefinition): unknown },
>(ajv: A): A {
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword(uniqueItems);
  return ajv;
}
