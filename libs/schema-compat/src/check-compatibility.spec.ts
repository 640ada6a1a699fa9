import { checkCompatibility } from './check-compatibility.js';
import type { SchemaChange } from './compatibility-report.js';
import { InvalidSchemaError } from './invalid-schema-error.js';

const breaking = (changes: SchemaChange[]) => changes.filter((change) => change.breaking);

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

describe('checkCompatibility reports', () => {
  it('points at the keyword in each schema and names old and new values for a narrowed property', () => {
    const oldSchema = { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } };
    const newSchema = { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } };
    const report = checkCompatibility(oldSchema, newSchema, 'backward');
    expect(report.compatible).toBe(false);
    expect(report.changes).toEqual([
      {
        code: 'MAX_LENGTH_DECREASED',
        breaking: true,
        old_pointer: '/properties/name/maxLength',
        new_pointer: '/properties/name/maxLength',
        message:
          '/properties/name/maxLength: maxLength changed from 10 to 5; the old schema accepts strings longer than 5 characters, which the new schema rejects.',
      },
    ]);
  });

  it('keeps naming old and new in the forward direction, where a widening breaks', () => {
    const report = checkCompatibility({ type: 'string', maxLength: 5 }, { type: 'string', maxLength: 10 }, 'forward');
    expect(report.changes).toEqual([
      {
        code: 'MAX_LENGTH_INCREASED',
        breaking: true,
        old_pointer: '/maxLength',
        new_pointer: '/maxLength',
        message:
          '/maxLength: maxLength changed from 5 to 10; the new schema accepts strings longer than 5 characters, which the old schema rejects.',
      },
    ]);
    expect(checkCompatibility({ type: 'string', maxLength: 5 }, { type: 'string', maxLength: 10 }, 'backward')).toEqual({
      compatible: true,
      changes: [expect.objectContaining({ code: 'MAX_LENGTH_INCREASED', breaking: false })],
    });
  });

  it('marks a change breaking under full when either direction breaks', () => {
    const report = checkCompatibility({ enum: ['a', 'b'] }, { enum: ['a', 'b', 'c'] }, 'full');
    expect(report.compatible).toBe(false);
    expect(report.changes).toContainEqual(expect.objectContaining({ code: 'ENUM_VALUE_ADDED', breaking: true, new_pointer: '/enum' }));
  });

  it('names the missing required property and where the new schema requires it', () => {
    const report = checkCompatibility({ type: 'object' }, { type: 'object', required: ['id'] }, 'backward');
    expect(breaking(report.changes)).toEqual([
      expect.objectContaining({
        code: 'REQUIRED_ADDED',
        old_pointer: '',
        new_pointer: '/required',
        message: expect.stringContaining("objects without 'id'"),
      }),
    ]);
  });

  it('names the removed enum value', () => {
    const [change] = checkCompatibility({ enum: ['draft', 'live', 'gone'] }, { enum: ['draft', 'live'] }, 'backward').changes;
    expect(change).toMatchObject({ code: 'ENUM_VALUE_REMOVED', breaking: true, old_pointer: '/enum', new_pointer: '/enum' });
    expect(change.message).toContain('"gone"');
  });

  it('points into $defs when the difference sits behind a reference', () => {
    const schema = (maxLength: number) => ({
      type: 'object',
      properties: { tag: { $ref: '#/$defs/tag' } },
      $defs: { tag: { type: 'string', maxLength } },
    });
    expect(breaking(checkCompatibility(schema(8), schema(4), 'backward').changes)).toEqual([
      expect.objectContaining({ code: 'MAX_LENGTH_DECREASED', old_pointer: '/$defs/tag/maxLength', new_pointer: '/$defs/tag/maxLength' }),
    ]);
  });

  it('names the property a closed schema no longer declares', () => {
    const closed = (properties: Record<string, unknown>) => ({ type: 'object', properties, additionalProperties: false });
    const report = checkCompatibility(
      closed({ a: { type: 'string' }, b: { type: 'integer' } }),
      closed({ a: { type: 'string' } }),
      'backward',
    );
    expect(breaking(report.changes)).toEqual([
      expect.objectContaining({
        code: 'PROPERTY_REMOVED_CLOSED',
        old_pointer: '/properties/b',
        new_pointer: '/additionalProperties',
        message: expect.stringContaining("property 'b'"),
      }),
    ]);
  });

  it('says why an undecided change is treated as breaking', () => {
    const [change] = checkCompatibility(
      { type: 'string', pattern: '^[a-z]+$' },
      { type: 'string', pattern: '^[a-z0-9]+$' },
      'backward',
    ).changes;
    expect(change).toMatchObject({ code: 'PATTERN_CHANGED', breaking: true, old_pointer: '/pattern', new_pointer: '/pattern' });
    expect(change.message).toContain('not decided');
  });

  it('reports nothing for annotation-only changes', () => {
    const report = checkCompatibility(
      { type: 'string', title: 'a', description: 'b', examples: ['x'], default: 'x', $comment: 'c' },
      {
        type: 'string',
        title: 'A',
        description: 'B',
        examples: ['y'],
        default: 'y',
        $comment: 'C',
        deprecated: true,
        readOnly: true,
        writeOnly: true,
      },
      'full',
    );
    expect(report).toEqual({ compatible: true, changes: [] });
  });

  it('terminates on deeply recursive schemas', () => {
    const tree = (leaf: string) => ({
      $defs: {
        node: { type: 'object', properties: { left: { $ref: '#/$defs/node' }, right: { $ref: '#/$defs/node' }, leaf: { type: leaf } } },
      },
      $ref: '#/$defs/node',
    });
    expect(checkCompatibility(tree('integer'), tree('number'), 'backward').compatible).toBe(true);
    expect(checkCompatibility(tree('integer'), tree('number'), 'forward').compatible).toBe(false);
  });

  it('gives up as breaking, naming why, rather than compare without bound', () => {
    const branches = (extra: object) => ({
      anyOf: Array.from({ length: 30 }, (_item, index) => ({ type: 'string', minLength: index, ...extra })),
    });
    const properties = (extra: object) => Object.fromEntries(Array.from({ length: 30 }, (_item, index) => [`p${index}`, branches(extra)]));
    const report = checkCompatibility(
      { type: 'object', properties: properties({}) },
      { type: 'object', properties: properties({ pattern: '^a' }) },
      'backward',
    );
    expect(report.compatible).toBe(false);
    expect(report.changes.map((change) => change.code)).toContain('UNDECIDABLE_TOO_COMPLEX');
  });

  it('refuses an unknown direction', () => {
    expect(() => checkCompatibility({}, {}, 'sideways' as never)).toThrow(TypeError);
  });

  it('does not modify its inputs', () => {
    const oldSchema = deepFreeze({
      type: 'object',
      properties: { a: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/n' }] } },
      $defs: { n: { type: 'null' } },
    });
    const newSchema = deepFreeze({ type: 'object', properties: { a: { type: ['string', 'null'] } }, required: ['a'] });
    expect(() => checkCompatibility(oldSchema, newSchema, 'full')).not.toThrow();
  });
});

describe('checkCompatibility input validation', () => {
  const rejection = (oldSchema: unknown, newSchema: unknown) => {
    try {
      checkCompatibility(oldSchema, newSchema, 'backward');
    } catch (error) {
      return error;
    }
    throw new Error('expected an InvalidSchemaError');
  };

  it('names the schema and the problem for an unknown type', () => {
    const error = rejection({ type: 'string' }, { type: 'strng' });
    expect(error).toBeInstanceOf(InvalidSchemaError);
    expect(error).toMatchObject({ schema: 'new', name: 'InvalidSchemaError' });
    expect((error as InvalidSchemaError).problems.join(' ')).toContain('/type');
  });

  it('refuses a value that is not a schema', () => {
    expect(rejection(42, {})).toMatchObject({ schema: 'old', problems: ['a schema must be an object or a boolean'] });
  });

  it('refuses a pattern that is not a regular expression', () => {
    const error = rejection({ type: 'object', patternProperties: { '(': {} } }, {}) as InvalidSchemaError;
    expect(error.schema).toBe('old');
    expect(error.problems[0]).toContain('not a valid regular expression');
  });

  it('refuses a $schema that names no dialect it reads', () => {
    expect(rejection({}, { $schema: 'http://json-schema.org/draft-04/schema#' })).toMatchObject({ schema: 'new' });
    const error = rejection({ $schema: 'https://example.com/my-dialect' }, {}) as InvalidSchemaError;
    expect(error).toMatchObject({ schema: 'old', dialect: undefined });
    expect(error.problems[0]).toContain('names no dialect this checker reads');
  });

  it('refuses a negative maxLength', () => {
    expect(rejection({ type: 'string', maxLength: -1 }, {})).toBeInstanceOf(InvalidSchemaError);
  });
});
