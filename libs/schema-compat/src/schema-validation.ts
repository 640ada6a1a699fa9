import { Ajv2020 } from 'ajv/dist/2020.js';
import { InvalidSchemaError } from './invalid-schema-error.js';
import { describePointer } from './json-pointer.js';
import { type SchemaNode, isSchemaNode, isSchemaObject, schemaMapKeyword, stringKeyword } from './keywords.js';
import type { SchemaSide } from './schema-document.js';
import { walkSchema } from './schema-walk.js';

const metaValidator = new Ajv2020({ strict: false, logger: false });

/** Throws InvalidSchemaError unless `schema` is a valid JSON Schema 2020-12 with compilable patterns. */
export function assertValidSchema(schema: unknown, side: SchemaSide): asserts schema is SchemaNode {
  if (!isSchemaNode(schema)) throw new InvalidSchemaError(side, ['a schema must be an object or a boolean']);
  const problems = metaProblems(schema);
  if (problems.length === 0) problems.push(...patternProblems(schema));
  if (problems.length > 0) throw new InvalidSchemaError(side, problems);
}

function metaProblems(schema: SchemaNode): string[] {
  try {
    if (metaValidator.validateSchema(schema) === true) return [];
    return (metaValidator.errors ?? []).map(
      (error) => `${describePointer(error.instancePath)} ${error.message ?? `fails ${error.keyword}`}`,
    );
  } catch (error) {
    // validateSchema throws for an unknown $schema (e.g. draft-07): only 2020-12 is accepted.
    return [error instanceof Error ? error.message : String(error)];
  }
}

function patternProblems(schema: SchemaNode): string[] {
  const problems: string[] = [];
  walkSchema(schema, '', (node, pointer) => {
    if (!isSchemaObject(node)) return;
    const patterns = [stringKeyword(node, 'pattern'), ...schemaMapKeyword(node, 'patternProperties').map(([pattern]) => pattern)];
    for (const pattern of patterns) {
      if (pattern === undefined) continue;
      try {
        new RegExp(pattern, 'u');
      } catch {
        problems.push(`${describePointer(pointer)} has a pattern that is not a valid regular expression: ${pattern}`);
      }
    }
  });
  return problems;
}
