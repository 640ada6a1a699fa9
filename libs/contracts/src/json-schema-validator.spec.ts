import { JsonSchemaValidator } from './json-schema-validator.js';

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

  it('names a missing required property', () => {
    expect(validator.validate(schema, {})).toEqual([{ pointer: '/', message: "missing required property 'voltage_v'" }]);
  });
});
