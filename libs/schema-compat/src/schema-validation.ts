import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { type Dialect, META_SCHEMA_IDS, dialectOf } from './dialects.js';
import { InvalidSchemaError } from './invalid-schema-error.js';
import { describePointer } from './json-pointer.js';
import { type SchemaNode, isSchemaNode, isSchemaObject, schemaMapKeyword, stringKeyword } from './keywords.js';
import type { SchemaSide } from './schema-document.js';
import { walkSchema } from './schema-walk.js';

const OPTIONS = { strict: false, logger: false } as const;

function createMetaValidator(dialect: Dialect): ValidateFunction {
  const ajv = dialect === '2020-12' ? new Ajv2020(OPTIONS) : dialect === '2019-09' ? new Ajv2019(OPTIONS) : new Ajv(OPTIONS);
  if (dialect === 'draft-06') ajv.addMetaSchema(createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-06.json'));
  const validate = ajv.getSchema(META_SCHEMA_IDS[dialect]);
  if (validate === undefined) throw new Error(`Ajv has no meta-schema for ${dialect}`);
  return validate;
}

const metaValidators = new Map<Dialect, ValidateFunction>();

/** Made on first use: compiling a meta-schema takes a while and most callers read one dialect. */
function metaValidator(dialect: Dialect): ValidateFunction {
  let validate = metaValidators.get(dialect);
  if (validate === undefined) {
    validate = createMetaValidator(dialect);
    metaValidators.set(dialect, validate);
  }
  return validate;
}

/**
 * The dialect of `schema` (its `$schema`, 2020-12 when absent). Throws InvalidSchemaError unless it is a
 * valid schema of that dialect by its meta-schema (validated with Ajv).
 */
export function assertValidSchema(schema: unknown, side: SchemaSide): Dialect {
  if (!isSchemaNode(schema)) throw new InvalidSchemaError(side, ['a schema must be an object or a boolean']);
  const dialect = dialectOf(schema, side);
  const validate = metaValidator(dialect);
  if (validate(schema) !== true) {
    const problems = (validate.errors ?? []).map(
      (error) => `${describePointer(error.instancePath)} ${error.message ?? `fails ${error.keyword}`}`,
    );
    throw new InvalidSchemaError(side, problems, dialect);
  }
  return dialect;
}

/** The `pattern` and `patternProperties` regexes of a schema (read as 2020-12) that do not compile, by pointer. */
export function patternProblems(schema: SchemaNode): { pointer: string; pattern: string }[] {
  const problems: { pointer: string; pattern: string }[] = [];
  walkSchema(schema, '', (node, pointer) => {
    if (!isSchemaObject(node)) return;
    const patterns = [stringKeyword(node, 'pattern'), ...schemaMapKeyword(node, 'patternProperties').map(([pattern]) => pattern)];
    for (const pattern of patterns) {
      if (pattern === undefined) continue;
      try {
        new RegExp(pattern, 'u');
      } catch {
        problems.push({ pointer, pattern });
      }
    }
  });
  return problems;
}

/** The sentence for a pattern that is not a regular expression. */
export function describePatternProblem(pointer: string, pattern: string): string {
  return `${describePointer(pointer)} has a pattern that is not a valid regular expression: ${pattern}`;
}
