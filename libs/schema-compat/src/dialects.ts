import { InvalidSchemaError } from './invalid-schema-error.js';
import { type SchemaNode, isSchemaObject } from './keywords.js';
import type { SchemaSide } from './schema-document.js';

/** The JSON Schema dialects the checker reads; a schema without `$schema` is 2020-12. */
export type Dialect = 'draft-06' | 'draft-07' | '2019-09' | '2020-12';

const DEFAULT_DIALECT: Dialect = '2020-12';

/** Each dialect's meta-schema URI, as Ajv registers it. */
export const META_SCHEMA_IDS: Readonly<Record<Dialect, string>> = {
  'draft-06': 'http://json-schema.org/draft-06/schema#',
  'draft-07': 'http://json-schema.org/draft-07/schema#',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
};

/**
 * Where a dialect's keywords hold schemas. Keywords of other dialects that a dialect does not define are
 * `foreign`: its validators ignore them, so they are dropped before the schema is read as 2020-12 (a
 * draft-07 `dependentRequired` constrains nothing).
 */
export interface DialectGrammar {
  /** Keywords whose value is one schema. */
  readonly singles: readonly string[];
  /** Keywords whose value is a list of schemas (`items` as a list is handled apart). */
  readonly lists: readonly string[];
  /** Keywords whose value maps names to schemas (`dependencies` is handled apart). */
  readonly maps: readonly string[];
  readonly foreign: ReadonlySet<string>;
  /** `items` may be a list (a tuple), with `additionalItems` for the rest. */
  readonly tupleItems: boolean;
  /** Keywords beside `$ref` are ignored (draft-07 and before). */
  readonly refOverridesSiblings: boolean;
  /** `$id: "#name"` declares an anchor (draft-07 and before; `$anchor` later). */
  readonly fragmentIds: boolean;
}

const LATER_KEYWORDS = [
  'prefixItems',
  'dependentRequired',
  'dependentSchemas',
  'unevaluatedItems',
  'unevaluatedProperties',
  'minContains',
  'maxContains',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$recursiveRef',
  '$recursiveAnchor',
];
const DRAFT_07_SINGLES = ['additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'];
const CONDITIONAL = ['if', 'then', 'else'];
const DEFINITIONS = ['definitions', '$defs'];
const DRAFT_07: DialectGrammar = {
  singles: DRAFT_07_SINGLES,
  lists: ['allOf', 'anyOf', 'oneOf'],
  maps: ['properties', 'patternProperties', ...DEFINITIONS],
  foreign: new Set(LATER_KEYWORDS),
  tupleItems: true,
  refOverridesSiblings: true,
  fragmentIds: true,
};

/** The grammar of each dialect. `$defs` and `definitions` are read as schema maps in all of them: `$ref` reaches them by pointer. */
export const GRAMMARS: Readonly<Record<Dialect, DialectGrammar>> = {
  'draft-06': {
    ...DRAFT_07,
    singles: DRAFT_07_SINGLES.filter((keyword) => !CONDITIONAL.includes(keyword)),
    foreign: new Set([...LATER_KEYWORDS, ...CONDITIONAL]),
  },
  'draft-07': DRAFT_07,
  '2019-09': {
    singles: [...DRAFT_07_SINGLES, 'unevaluatedItems', 'unevaluatedProperties'],
    lists: ['allOf', 'anyOf', 'oneOf'],
    maps: ['properties', 'patternProperties', 'dependentSchemas', ...DEFINITIONS],
    foreign: new Set(['prefixItems', '$dynamicRef', '$dynamicAnchor']),
    tupleItems: true,
    refOverridesSiblings: false,
    fragmentIds: false,
  },
  '2020-12': {
    singles: [...DRAFT_07_SINGLES, 'items', 'unevaluatedItems', 'unevaluatedProperties'],
    lists: ['allOf', 'anyOf', 'oneOf', 'prefixItems'],
    maps: ['properties', 'patternProperties', 'dependentSchemas', ...DEFINITIONS],
    foreign: new Set(),
    tupleItems: false,
    refOverridesSiblings: false,
    fragmentIds: false,
  },
};

/** `$schema` spellings seen in the wild: http or https, with or without the empty fragment. */
function canonicalUri(uri: string): string {
  return uri
    .trim()
    .replace(/^https:/, 'http:')
    .replace(/#$/, '');
}

const DIALECT_BY_URI = new Map<string, Dialect>(
  (Object.entries(META_SCHEMA_IDS) as [Dialect, string][]).map(([dialect, uri]) => [canonicalUri(uri), dialect]),
);

/** The dialect `$schema` names; undefined for a URI that names none the checker reads. */
export function dialectOfUri(uri: string): Dialect | undefined {
  return DIALECT_BY_URI.get(canonicalUri(uri));
}

/**
 * The dialect of a schema, from its root `$schema` (2020-12 when there is none). Throws InvalidSchemaError
 * for a `$schema` the checker does not read: its keywords could mean anything, and reading them as
 * 2020-12 could call a breaking change compatible.
 */
export function dialectOf(schema: SchemaNode, side: SchemaSide): Dialect {
  if (!isSchemaObject(schema) || schema.$schema === undefined) return DEFAULT_DIALECT;
  const uri = schema.$schema;
  const dialect = typeof uri === 'string' ? dialectOfUri(uri) : undefined;
  if (dialect !== undefined) return dialect;
  throw new InvalidSchemaError(side, [
    `/$schema ${JSON.stringify(uri)} names no dialect this checker reads: declare draft-07 (${META_SCHEMA_IDS['draft-07']}), ` +
      `draft-06, 2019-09 or 2020-12 (${META_SCHEMA_IDS['2020-12']}), or leave $schema out for 2020-12`,
  ]);
}
