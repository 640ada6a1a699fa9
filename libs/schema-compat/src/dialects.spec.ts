import { checkCompatibility } from './check-compatibility.js';
import type { SchemaChange } from './compatibility-report.js';
import { InvalidSchemaError } from './invalid-schema-error.js';

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const DRAFT_2019 = 'https://json-schema.org/draft/2019-09/schema';
const draft07 = (schema: object) => ({ $schema: DRAFT_07, ...schema });
const breaking = (changes: SchemaChange[]) => changes.filter((change) => change.breaking);

function rejection(oldSchema: unknown, newSchema: unknown): InvalidSchemaError {
  try {
    checkCompatibility(oldSchema, newSchema, 'backward');
  } catch (error) {
    if (error instanceof InvalidSchemaError) return error;
    throw error;
  }
  throw new Error('expected an InvalidSchemaError');
}

describe('schemas read in the dialect their $schema names', () => {
  it('breaks on a draft-07 dependency moved from foo to bar, pointing at the new dependencies entry', () => {
    const report = checkCompatibility(
      draft07({ dependencies: { foo: { required: ['bar'] } } }),
      draft07({ dependencies: { bar: { required: ['foo'] } } }),
      'backward',
    );
    expect(report.compatible).toBe(false);
    expect(breaking(report.changes)).toContainEqual(
      expect.objectContaining({
        code: 'DEPENDENT_SCHEMA_ADDED',
        old_pointer: '',
        new_pointer: '/dependencies/bar',
        message: expect.stringMatching(/^\/dependencies\/bar: /),
      }),
    );
  });

  it('reads dependencies without $schema too, as 2020-12 validators still apply it', () => {
    const oldSchema = { type: 'object', dependencies: { foo: ['bar'] } };
    expect(checkCompatibility(oldSchema, { type: 'object', dependencies: { bar: ['foo'] } }, 'backward').compatible).toBe(false);
    expect(checkCompatibility(oldSchema, { type: 'object' }, 'backward').compatible).toBe(true);
  });

  it('reports a change inside a draft-07 tuple at the tuple item, in pointers and message', () => {
    const tuple = (first: object) => draft07({ type: 'array', items: [first, { type: 'number' }], additionalItems: false });
    const [change] = breaking(checkCompatibility(tuple({ type: 'string' }), tuple({ type: 'string', maxLength: 2 }), 'backward').changes);
    expect(change).toMatchObject({ code: 'MAX_LENGTH_DECREASED', old_pointer: '/items/0', new_pointer: '/items/0/maxLength' });
    expect(change.message).toMatch(/^\/items\/0\/maxLength: maxLength changed from none to 2/);
  });

  it('names the original branch pointers in a message about a oneOf inside a tuple', () => {
    const report = checkCompatibility(
      draft07({ items: [{ type: 'string' }] }),
      draft07({ items: [{ oneOf: [{ type: 'string' }, { maxLength: 3 }] }] }),
      'backward',
    );
    const change = breaking(report.changes).find((candidate) => candidate.code === 'UNDECIDABLE_ONE_OF');
    expect(change).toMatchObject({ new_pointer: '/items/0' });
    expect(change?.message).toContain('/items/0/oneOf/0');
    expect(report.changes.map((candidate) => candidate.message).join(' ')).not.toMatch(/prefixItems|dependentRequired/);
  });

  it('points at the dependencies entry when it sits beside dependentRequired (2020-12)', () => {
    const report = checkCompatibility(
      { dependentRequired: { a: ['b'] } },
      { dependentRequired: { a: ['b'] }, dependencies: { c: ['d'] } },
      'backward',
    );
    expect(breaking(report.changes)).toEqual([
      expect.objectContaining({ code: 'DEPENDENT_REQUIRED_ADDED', new_pointer: '/dependencies/c' }),
    ]);
  });

  it('ignores what draft-07 ignores: keywords beside $ref, additionalItems without an items list, later keywords', () => {
    const ref = { $ref: '#/definitions/s', definitions: { s: { type: 'string' } } };
    expect(checkCompatibility(draft07(ref), draft07({ ...ref, maxLength: 2 }), 'backward')).toEqual({ compatible: true, changes: [] });
    expect(checkCompatibility(draft07({ additionalItems: true }), draft07({ additionalItems: false }), 'backward').compatible).toBe(true);
    expect(
      checkCompatibility(draft07({}), draft07({ dependentRequired: { a: ['b'] }, unevaluatedProperties: false }), 'full').compatible,
    ).toBe(true);
  });

  it('says UNDECIDABLE_KEYWORD, naming the keyword and where it is, for a keyword it does not analyse', () => {
    const report = checkCompatibility(
      { $schema: DRAFT_2019, type: 'object', properties: { a: { type: 'string' } } },
      { $schema: DRAFT_2019, type: 'object', properties: { a: { type: 'string' } }, unevaluatedProperties: false },
      'backward',
    );
    expect(report.compatible).toBe(false);
    expect(report.changes).toContainEqual(
      expect.objectContaining({
        code: 'UNDECIDABLE_KEYWORD',
        breaking: true,
        new_pointer: '/unevaluatedProperties',
        message: expect.stringContaining('unevaluatedProperties is not analysed'),
      }),
    );
  });

  it('does not take equal $dynamicRef values for equal schemas', () => {
    const schema = (type: string) => ({ properties: { p: { $dynamicRef: '#n' } }, $defs: { a: { $dynamicAnchor: 'n', type } } });
    expect(checkCompatibility(schema('string'), schema('integer'), 'backward').compatible).toBe(false);
  });

  it('does not modify its inputs', () => {
    const freeze = <T>(value: T): T => {
      if (typeof value === 'object' && value !== null) Object.values(value).forEach(freeze);
      return Object.freeze(value);
    };
    const oldSchema = freeze(
      draft07({ items: [{ $ref: '#/definitions/a' }], additionalItems: { $ref: '#/items/0' }, definitions: { a: {} } }),
    );
    const newSchema = freeze(draft07({ dependencies: { a: ['b'], c: { $id: '#c', type: 'object' } }, properties: { p: { $ref: '#c' } } }));
    expect(() => checkCompatibility(oldSchema, newSchema, 'full')).not.toThrow();
  });
});

describe('schemas the checker does not read', () => {
  it('names the dialect and the original pointer of an invalid draft-07 schema', () => {
    const error = rejection(draft07({ type: 'array', items: [{ type: 'string', pattern: '(' }] }), {});
    expect(error).toMatchObject({ schema: 'old', dialect: 'draft-07' });
    expect(error.message).toContain('not a valid JSON Schema draft-07');
    expect(error.problems).toEqual(['/items/0 has a pattern that is not a valid regular expression: (']);
  });

  it('keeps 2020-12 the dialect of a schema without $schema, where items is one schema', () => {
    expect(rejection({}, { type: 'array', items: [{ type: 'string' }] })).toMatchObject({ schema: 'new', dialect: '2020-12' });
  });

  it('refuses a nested $schema of another dialect', () => {
    const error = rejection(draft07({ properties: { a: { $schema: 'https://json-schema.org/draft/2020-12/schema' } } }), {});
    expect(error.problems[0]).toContain('/properties/a/$schema names another dialect');
  });

  it('reads draft-06, refuses draft-04', () => {
    const draft06 = { $schema: 'http://json-schema.org/draft-06/schema#', type: 'string', maxLength: 3 };
    expect(checkCompatibility(draft06, { ...draft06, maxLength: 2 }, 'backward').compatible).toBe(false);
    expect(rejection({ $schema: 'http://json-schema.org/draft-04/schema#' }, {}).problems[0]).toContain(
      'names no dialect this checker reads',
    );
  });
});
