import { openAiStrictViolations } from './openai-strict.js';

const strictObject = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...extra,
});

describe('openAiStrictViolations', () => {
  it('accepts a closed object whose properties are all required and use supported keywords only', () => {
    const schema = strictObject(
      {
        text: { type: 'string', description: 'Text', pattern: '^[a-z]+$' },
        when: { type: 'string', format: 'date-time' },
        count: { type: 'integer', minimum: 1, maximum: 9 },
        mode: { type: 'string', enum: ['a', 'b'] },
        maybe: { type: ['string', 'null'] },
        items: { type: 'array', items: strictObject({ key: { type: 'string' } }), maxItems: 3 },
        either: { anyOf: [{ type: 'number' }, strictObject({ id: { type: 'string' } })] },
      },
      { $schema: 'https://json-schema.org/draft/2020-12/schema' },
    );
    expect(openAiStrictViolations(schema)).toEqual([]);
  });

  it('names optional properties and open objects, at any depth', () => {
    const schema = strictObject({
      nested: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a'] },
    });
    expect(openAiStrictViolations(schema)).toEqual([
      '/properties/nested: additionalProperties must be false',
      '/properties/nested: every property must be required (optional: b)',
    ]);
  });

  it('refuses keywords outside the supported subset, unknown formats and a non-object root', () => {
    const schema = strictObject({
      text: { type: 'string', minLength: 1, default: 'x' },
      url: { type: 'string', format: 'uri' },
      pick: { oneOf: [{ type: 'string' }, { type: 'number' }] },
    });
    expect(openAiStrictViolations(schema)).toEqual([
      "/properties/text: keyword 'minLength' is not supported",
      "/properties/text: keyword 'default' is not supported",
      "/properties/url: format 'uri' is not supported",
      "/properties/pick: keyword 'oneOf' is not supported",
    ]);
    expect(openAiStrictViolations({ anyOf: [strictObject({})] })).toEqual(
      expect.arrayContaining(['/: the root must be an object schema', '/: the root must not be anyOf']),
    );
  });

  it('enforces the nesting limit', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let depth = 0; depth < 12; depth++) schema = strictObject({ child: schema });
    expect(openAiStrictViolations(schema).some((violation) => violation.includes('nested deeper than 10 levels'))).toBe(true);
  });
});
