import { type TranslatedSchema, translateSchema } from './dialect-translation.js';
import { InvalidSchemaError } from './invalid-schema-error.js';
import type { SchemaNode } from './keywords.js';
import type { SchemaSide } from './schema-document.js';
import { assertValidSchema, describePatternProblem, patternProblems } from './schema-validation.js';

/**
 * Reads one side of a check: its dialect from `$schema` (2020-12 when absent), validation against that
 * dialect's meta-schema, translation into 2020-12 keywords, and compilable `pattern` regexes. Throws
 * InvalidSchemaError naming the side and every problem found, at pointers of the schema as written.
 */
export function readSchema(schema: unknown, side: SchemaSide): TranslatedSchema {
  const dialect = assertValidSchema(schema, side);
  const translated = translateSchema(schema as SchemaNode, dialect, side);
  const problems = patternProblems(translated.root).map(({ pointer, pattern }) =>
    describePatternProblem(translated.pointers.toOriginal(pointer), pattern),
  );
  if (problems.length > 0) throw new InvalidSchemaError(side, problems, dialect);
  return translated;
}
