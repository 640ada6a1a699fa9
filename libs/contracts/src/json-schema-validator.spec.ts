import { JsonSchemaValidator } from './json-schema-validator.js';
import { schemaRegExp, unsafePatterns } from './schema-pattern.js';

const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { voltage_v: { type: 'number', minimum: 0 }, net: { type: 'string', format: 'uuid' } },
  required: ['voltage_v'],
  additionalProperties: false,
};

describe('JsonSchemaValidator', () => {
  const validator = new JsonSchemaValidator();

  it('accepts a valid document', () => {
    expect(validator.validate(schema, { voltage_v: 3.3 })).toEqual([]);
  });

  it('lists every violation with its JSON pointer', () => {
    const violations = validator.validate(schema, { voltage_v: -1, net: 'x', extra: true });
    expect(violations).toEqual(
      expect.arrayContaining([
        { pointer: '/voltage_v', message: 'must be >= 0' },
        { pointer: '/net', message: 'must match format "uuid"' },
        { pointer: '/', message: "unknown property 'extra'" },
      ]),
    );
  });

  it('lists the first 100 violations and says how many more there are', () => {
    const items = { type: 'array', items: { type: 'number' } };
    const violations = validator.validate(
      items,
      Array.from({ length: 2_000 }, () => 'a'),
    );
    expect(violations).toHaveLength(101);
    expect(violations[99]).toEqual({ pointer: '/99', message: 'must be number' });
    expect(violations[100]).toEqual({ pointer: '/', message: '1,900 more violations not listed' });
    expect(
      validator.validate(
        items,
        Array.from({ length: 100 }, () => 'a'),
      ),
    ).toHaveLength(100);
  });

  // Ajv's allErrors makes an error per failing keyword, union branches included: 3.3 million error objects, 500 MB of
  // heap for this one document before the bound (2026-12-06); a few such requests at once ended the process.
  it('reports only the first violation of a document too large to look for every one, without holding its errors', () => {
    const union = {
      type: 'array',
      items: { anyOf: Array.from({ length: 10 }, (_, index) => ({ type: 'object', required: [`f${index}`] })) },
    };
    const items = Array.from({ length: 300_000 }, () => ({}));
    const heapBefore = process.memoryUsage().heapUsed;
    const violations = validator.validate(union, items);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(150 * 1024 * 1024);
    expect(violations[0]).toEqual({ pointer: '/0', message: "missing required property 'f0'" });
    expect(violations.at(-1)).toEqual({
      pointer: '/',
      message: 'only the first violation is listed: the document is too large to look for every one',
    });
    expect(violations.length).toBeLessThanOrEqual(12);
    expect(validator.validate(union, [{ f3: 1 }, { f9: 1 }])).toEqual([]);
    expect(validator.validate(union, [{ f3: 1 }, {}]).filter((violation) => violation.pointer === '/1')).toHaveLength(11);
  });

  it('names a missing required property', () => {
    expect(validator.validate(schema, {})).toEqual([{ pointer: '/', message: "missing required property 'voltage_v'" }]);
  });
});

// A publisher's pattern runs on anyone's input in the registry and the executor, on the process's event loop.
describe('JsonSchemaValidator: publishers’ patterns', () => {
  const validator = new JsonSchemaValidator();
  const EXPONENTIAL = ['^(a+)+$', '^(a|a?)+$', '^(\\w+\\s?)*$'];

  it('compiles a pattern that needs no Unicode mode without it, so that V8 may rerun it on its linear-time engine', () => {
    expect(schemaRegExp('^(a+)+$', 'u').flags).toBe('');
    expect(schemaRegExp('^\\p{Lu}$', 'u').flags).toBe('u');
    expect(schemaRegExp('^\\u{1F600}$', 'u').flags).toBe('u');
    expect(schemaRegExp('^😀$', 'u').flags).toBe('u');
  });

  // A liveness bound, not a speed target: each of these against 25 `a`s and a `!` took 1.2–7.6 s on the backtracking
  // engine alone here (2026-12-06), and answers in milliseconds on the linear one; against 100 it would never end.
  it('answers for patterns that backtrack exponentially, in pattern and patternProperties, without holding the process', () => {
    const started = performance.now();
    for (const length of [25, 100, 10_000]) {
      const hostile = 'a'.repeat(length) + '!';
      for (const pattern of EXPONENTIAL) {
        expect(validator.validate({ type: 'string', pattern }, hostile)).toEqual([
          { pointer: '/', message: `must match pattern "${pattern}"` },
        ]);
        expect(validator.validate({ type: 'string', pattern }, 'aaaa')).toEqual([]);
      }
      const keyed = { type: 'object', patternProperties: { '^(a+)+$': { type: 'number' } }, additionalProperties: false };
      expect(validator.validate(keyed, { [hostile]: 1 })).toEqual([{ pointer: '/', message: `unknown property '${hostile}'` }]);
    }
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('keeps the meaning of Unicode patterns and of patterns with lookaround', () => {
    expect(validator.validate({ type: 'string', pattern: '^\\p{Lu}\\p{Ll}+$' }, 'Élan')).toEqual([]);
    expect(validator.validate({ type: 'string', pattern: '^\\p{Lu}\\p{Ll}+$' }, 'élan')).toHaveLength(1);
    expect(validator.validate({ type: 'string', pattern: '^\\u{1F600}$' }, '😀')).toEqual([]);
    expect(validator.validate({ type: 'string', pattern: '^(?!\\.)[a-z.]+$' }, 'a.b')).toEqual([]);
    expect(validator.validate({ type: 'string', pattern: '^(?!\\.)[a-z.]+$' }, '.ab')).toHaveLength(1);
    expect(validator.validate({ type: 'string', format: 'email' }, 'a@b.example')).toEqual([]);
  });
});

// What V8's linear-time engine cannot run is analysed at registration (recheck, in its own process), and refused when
// it can backtrack for long: otherwise a lookahead in front of (a+)+ would be enough to get past schemaRegExp.
describe('unsafePatterns: what a registration refuses', () => {
  it('passes patterns the linear-time engine runs (protected at run time) and safe ones it cannot run', async () => {
    expect(
      await unsafePatterns({
        type: 'object',
        properties: {
          a: { type: 'string', pattern: '^(a+)+$' },
          b: { type: 'string', pattern: '^\\p{L}+$' },
          c: { pattern: '^(?!\\.)[a-z.]+$' },
        },
      }),
    ).toEqual([]);
  });

  it('refuses one it cannot run that backtracks exponentially, in pattern and patternProperties, naming where and why', async () => {
    const unsafe = await unsafePatterns({
      type: 'object',
      properties: { words: { type: 'string', pattern: '^(?=\\w)(\\w+\\s?)*$' } },
      patternProperties: { '^(\\p{L}+)+$': { type: 'number' } },
      // data, not schemas: never analysed
      examples: [{ pattern: '^(?=a)(a+)+$' }],
      default: { pattern: '^(?=a)(a+)+$' },
    });
    expect(unsafe.map(({ pointer, pattern }) => ({ pointer, pattern }))).toEqual([
      { pointer: '/properties/words/pattern', pattern: '^(?=\\w)(\\w+\\s?)*$' },
      { pointer: '/patternProperties/^(\\p{L}+)+$', pattern: '^(\\p{L}+)+$' },
    ]);
    expect(unsafe[0]?.reason).toMatch(/V8 cannot run it in linear time .*, and it can take exponential time, e\.g\. on /);
  });
});
