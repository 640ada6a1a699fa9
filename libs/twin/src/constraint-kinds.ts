import { JsonSchemaValidator } from '#contracts/index.js';
import { TwinFailure } from './twin-failure.js';

/**
 * The constraint kinds the twin knows, each with the JSON Schema its fields must match. A new kind is
 * one entry here; skills read constraints by kind.
 */
const CONSTRAINT_KINDS: Record<string, { description: string; schema: Record<string, unknown> }> = {
  max_von_mises_stress: {
    description: 'Allowable von Mises stress: the material limit divided by a required safety factor',
    schema: {
      type: 'object',
      required: ['max_von_mises_mpa', 'material'],
      properties: {
        max_von_mises_mpa: { type: 'number', exclusiveMinimum: 0 },
        safety_factor: { type: 'number', minimum: 1, default: 1.5 },
        material: { type: 'string', minLength: 1, maxLength: 200 },
      },
    },
  },
  max_temperature: {
    description: 'Highest allowed temperature, optionally of one region',
    schema: {
      type: 'object',
      required: ['max_temperature_c'],
      properties: { max_temperature_c: { type: 'number', minimum: -273.15 }, region: { type: 'string', minLength: 1, maxLength: 200 } },
    },
  },
  max_displacement: {
    description: 'Largest allowed displacement magnitude',
    schema: {
      type: 'object',
      required: ['max_displacement_mm'],
      properties: { max_displacement_mm: { type: 'number', exclusiveMinimum: 0 } },
    },
  },
  max_elements: {
    description: 'Element budget of a mesh',
    schema: { type: 'object', required: ['max_elements'], properties: { max_elements: { type: 'integer', minimum: 1 } } },
  },
  flash_budget: {
    description: 'Flash memory budget of a firmware image',
    schema: { type: 'object', required: ['max_bytes'], properties: { max_bytes: { type: 'integer', minimum: 1 } } },
  },
  ram_budget: {
    description: 'RAM budget of a firmware image',
    schema: { type: 'object', required: ['max_bytes'], properties: { max_bytes: { type: 'integer', minimum: 1 } } },
  },
};

const MAX_CONSTRAINTS = 100;
const validator = new JsonSchemaValidator();

/** Checks a list of constraints (`{ kind, ...fields }`); throws INVALID naming every bad field. */
export function checkConstraints(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value))
    throw new TwinFailure('INVALID', 'constraints must be an array', {}, [{ field: 'constraints', message: 'must be an array' }]);
  if (value.length > MAX_CONSTRAINTS) {
    throw new TwinFailure('INVALID', `at most ${MAX_CONSTRAINTS} constraints`, {}, [
      { field: 'constraints', message: `at most ${MAX_CONSTRAINTS}` },
    ]);
  }
  const errors: { field: string; message: string }[] = [];
  value.forEach((constraint, index) => {
    const field = `constraints[${index}]`;
    if (constraint === null || typeof constraint !== 'object' || Array.isArray(constraint)) {
      errors.push({ field, message: 'must be an object with a kind' });
      return;
    }
    const { kind, ...fields } = constraint as Record<string, unknown>;
    const known = typeof kind === 'string' ? CONSTRAINT_KINDS[kind] : undefined;
    if (!known || !Object.hasOwn(CONSTRAINT_KINDS, kind as string)) {
      errors.push({ field: `${field}.kind`, message: `must be one of ${Object.keys(CONSTRAINT_KINDS).join(', ')}` });
      return;
    }
    for (const violation of validator.validate(known.schema, fields, `twin-constraint:${kind as string}`)) {
      errors.push({
        field: `${field}${violation.pointer === '/' ? '' : violation.pointer.replace(/\//g, '.')}`,
        message: violation.message,
      });
    }
  });
  if (errors.length > 0)
    throw new TwinFailure('INVALID', `constraints are invalid: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`, {}, errors);
  return value as Record<string, unknown>[];
}
