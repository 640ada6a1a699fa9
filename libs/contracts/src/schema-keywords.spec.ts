import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { JsonSchemaValidator } from './json-schema-validator.js';
import { duplicateItems } from './schema-keywords.js';

// A publisher's `uniqueItems` runs on anyone's input in the registry (and on a handler's output in the executor).
describe('uniqueItems in linear time', () => {
  const validator = new JsonSchemaValidator();
  const schema = { type: 'object', properties: { items: { type: 'array', uniqueItems: true, items: { type: 'object' } } } };

  // A liveness bound, not a speed target: Ajv's own check compared every item with every other, and 16,000 distinct
  // objects (180 KB) held the event loop 4 s here (2026-12-06); 100,000 (the 1 MiB a request may carry) over a minute.
  it('answers for 100,000 distinct objects without holding the process', () => {
    const items = Array.from({ length: 100_000 }, (_, index) => ({ a: index }));
    const started = performance.now();
    expect(validator.validate(schema, { items })).toEqual([]);
    items.push({ a: 99_999 });
    expect(validator.validate(schema, { items })).toEqual([
      { pointer: '/items', message: 'must NOT have duplicate items (items ## 99999 and 100000 are identical)' },
      { pointer: '/', message: 'only the first violation is listed: the document is too large to look for every one' },
    ]);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('finds items equal as JSON values: key order aside, numbers by value, nested alike', () => {
    expect(validator.validate(schema, { items: [{ a: 1, b: [1, { c: 2 }] }, { x: 1 }, { b: [1, { c: 2 }], a: 1 }] })).toEqual([
      { pointer: '/items', message: 'must NOT have duplicate items (items ## 0 and 2 are identical)' },
    ]);
    expect(validator.validate(schema, { items: JSON.parse('[{"a": 1}, {"a": 1.0}]') })).toHaveLength(1);
    expect(validator.validate(schema, { items: [{ a: [1, 2] }, { a: [2, 1] }, { a: 1, b: null }, { a: 1 }] })).toEqual([]);
  });

  it('tells scalars of different types apart, and checks items of any type or none declared', () => {
    const any = { type: 'array', uniqueItems: true };
    expect(validator.validate(any, [1, '1', true, 'true', null, 'null', [1], '[1]', {}, '{}'])).toEqual([]);
    expect(validator.validate(any, ['a', 'b', 'a'])).toEqual([
      { pointer: '/', message: 'must NOT have duplicate items (items ## 0 and 2 are identical)' },
    ]);
    expect(validator.validate({ type: 'array', uniqueItems: true, items: { type: 'string' } }, ['__proto__', '__proto__'])).toHaveLength(1);
  });

  it('checks nothing when uniqueItems is false or the value is no array', () => {
    expect(validator.validate({ type: 'array', uniqueItems: false }, [{ a: 1 }, { a: 1 }])).toEqual([]);
    expect(validator.validate({ uniqueItems: true }, { 0: 'a', 1: 'a' })).toEqual([]);
  });

  it('reports the first pair of equal items, earlier first', () => {
    expect(duplicateItems([3, 1, 2, 1, 3])).toEqual([1, 3]);
    expect(duplicateItems([])).toBeNull();
  });
});

// Ajv's own checks (by deep equality) are the reference.
describe('uniqueItems and enum: the same verdicts as Ajv', () => {
  const ours = new JsonSchemaValidator();
  const reference = new Ajv2020({ strict: false }).compile({ type: 'array', uniqueItems: true });
  /** The same value with its objects' keys in reverse order. */
  const reordered = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(reordered)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value)
              .reverse()
              .map(([key, item]) => [key, reordered(item)]),
          )
        : value;

  it('agrees on arrays of JSON values, with equal items written differently among them', () => {
    const item = fc.jsonValue({ maxDepth: 2 });
    const array = fc
      .tuple(fc.array(item, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 3 }))
      .map(([items, picks]) => (items.length === 0 ? items : [...items, ...picks.map((pick) => reordered(items[pick % items.length]))]));
    fc.assert(
      fc.property(array, (items) => {
        const parsed = JSON.parse(JSON.stringify(items)) as unknown[];
        expect(ours.validate({ type: 'array', uniqueItems: true }, parsed).length === 0).toBe(reference(parsed));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees on enum membership of JSON values, with allowed values written differently', () => {
    const plain = new Ajv2020({ strict: false });
    const item = fc.jsonValue({ maxDepth: 2 });
    const case_ = fc
      .tuple(fc.array(item, { minLength: 1, maxLength: 6 }), fc.oneof(item, fc.nat()))
      .map(([allowed, pick]) => ({ allowed, value: typeof pick === 'number' ? reordered(allowed[pick % allowed.length]) : pick }));
    fc.assert(
      fc.property(case_, ({ allowed, value }) => {
        const schema = JSON.parse(JSON.stringify({ enum: allowed })) as Record<string, unknown>;
        const parsed = JSON.parse(JSON.stringify(value ?? null)) as unknown;
        expect(ours.validate(schema, parsed).length === 0).toBe(plain.validate(schema, parsed));
      }),
      { numRuns: 2000 },
    );
  });
});

// An enum is a publisher's (a list of part numbers, say) and runs on anyone's input, once per value in an array.
describe('enum in linear time', () => {
  const validator = new JsonSchemaValidator();
  const parts = Array.from({ length: 5_000 }, (_, index) => `part-${index}`);
  const schema = { type: 'array', items: { type: 'string', enum: parts } };

  // A liveness bound, not a speed target: Ajv compared each value with the allowed ones in turn, and 100,000 values
  // against 5,000 allowed held the event loop 3.0 s here (2026-12-06); 400,000 (5 MB, a handler's output) 12 s.
  it('answers for 400,000 values against 5,000 allowed ones without holding the process', () => {
    const started = performance.now();
    expect(
      validator.validate(
        schema,
        Array.from({ length: 400_000 }, () => 'part-4999'),
      ),
    ).toEqual([]);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('accepts exactly the allowed JSON values, with the error Ajv gives', () => {
    expect(validator.validate(schema, ['part-0', 'part-4999'])).toEqual([]);
    expect(validator.validate(schema, ['part-5000'])).toEqual([{ pointer: '/0', message: 'must be equal to one of the allowed values' }]);
    const mixed = { enum: [1, 'one', null, true, [1, { a: 2 }], { b: 1, a: [null] }] };
    for (const allowed of [1, 1.0, 'one', null, true, [1, { a: 2 }], { a: [null], b: 1 }])
      expect(validator.validate(mixed, allowed)).toEqual([]);
    for (const other of [2, '1', 'ONE', false, [{ a: 2 }, 1], { b: 1 }, { a: [null], b: 1, c: 0 }, [1, { a: 2 }, null]])
      expect(validator.validate(mixed, other)).toHaveLength(1);
  });
});
