import type { ErrorObject } from 'ajv';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { schemaRegExp } from '#contracts/schema-pattern.js';
import { linearKeywords } from '#contracts/schema-keywords.js';
import { describeValue } from '#skill-loader/describe.js';
import type { IssueList } from '#skill-loader/issues.js';
import { isMapping } from './yaml-text.js';

// CommonJS modules whose module.exports also carries `.default`: that is the form typed under NodeNext.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

/** A compiled JSON Schema validator. */
export type SchemaValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

let captured: string[] = [];
const logger = { log: () => undefined, warn: (...parts: unknown[]) => captured.push(parts.join(' ')), error: () => undefined };
type Ajv = InstanceType<typeof Ajv2020>;
let instances: { lenient: Ajv; keywordCheck: Ajv } | null = null;

/**
 * The ajv instances, made on first use (with their formats, and on first compile the 2020-12 meta-schema, they cost
 * tens of milliseconds that a start with nothing to check need not pay):
 * - lenient: validates and compiles with the options the registry's example checks use (non-strict, full formats; the
 *   first violation only: a publisher's 10 MiB example or schema with every violation listed would be millions of
 *   error objects in the registry's heap, see JsonSchemaValidator);
 * - keywordCheck: only to find unknown keywords (typos such as `propertise`), which lenient compilation accepts silently.
 */
function ajv(): { lenient: Ajv; keywordCheck: Ajv } {
  if (instances === null) {
    const lenient = linearKeywords(new Ajv2020({ strict: false, logger, code: { regExp: schemaRegExp } }));
    const keywordCheck = new Ajv2020({ strict: false, strictSchema: 'log', logger });
    addFormats(lenient);
    addFormats(keywordCheck);
    instances = { lenient, keywordCheck };
  }
  return instances;
}

let anyObject: SchemaValidator | null = null;

/** Validator of the permissive input schema `{ type: 'object' }` of tools that declare none (compiled on first use). */
export const validateAnyObject: SchemaValidator = Object.assign(
  (data: unknown): boolean => {
    anyObject ??= ajv().lenient.compile({ type: 'object' }) as SchemaValidator;
    const valid = anyObject(data);
    validateAnyObject.errors = anyObject.errors;
    return valid;
  },
  { errors: null as ErrorObject[] | null | undefined },
);

/** Where a schema sits, for messages: `tools.yaml` and `/tools/0/input_schema`, tool `create_sphere`. */
export interface SchemaSite {
  file: string;
  pointer: string;
  /** e.g. `input_schema of tool 'create_sphere'`. */
  label: string;
  role: 'input' | 'output';
}

/**
 * Check that `schema` is a valid JSON Schema 2020-12 object that compiles, and return its validator. The input
 * schema of an MCP tool must describe an object (error); an output schema that does not is a warning.
 */
export function checkJsonSchema(schema: unknown, site: SchemaSite, issues: IssueList): SchemaValidator | null {
  if (!isMapping(schema)) {
    issues.error(
      'schema',
      site.file,
      site.pointer,
      `${site.label} must be a JSON Schema object; found ${describeValue(schema)}`,
      'Write the schema as a mapping, e.g. { type: object, properties: { ... } }.',
    );
    return null;
  }
  const { lenient } = ajv();
  let metaValid: boolean;
  try {
    metaValid = lenient.validateSchema(schema) as boolean;
  } catch (cause) {
    issues.error(
      'schema',
      site.file,
      site.pointer,
      `${site.label} cannot be checked: ${firstLine(cause)}`,
      'Use JSON Schema 2020-12: remove "$schema" or set it to "https://json-schema.org/draft/2020-12/schema".',
    );
    return null;
  }
  if (!metaValid) {
    issues.error(
      'schema',
      site.file,
      site.pointer,
      `${site.label} is not a valid JSON Schema (2020-12): ${formatSchemaErrors(lenient.errors ?? [])}`,
      'Fix the schema keywords named above (types are object, array, string, number, integer, boolean or null; required is a list).',
    );
    return null;
  }
  if (schema.type !== 'object') {
    const found = schema.type === undefined ? 'no type' : `type ${JSON.stringify(schema.type)}`;
    const message = `${site.label} must describe a JSON object (type: object), but it has ${found}`;
    const hint = `Write "type: object" with the ${site.role} fields under properties.`;
    if (site.role === 'input') {
      issues.error('schema', site.file, site.pointer, `${message}: MCP tool arguments are an object`, hint);
      return null;
    }
    issues.warning('schema', site.file, site.pointer, `${message} (MCP clients expect an object as structured output)`, hint);
  }
  for (const keyword of unknownKeywords(schema)) {
    issues.warning(
      'schema',
      site.file,
      site.pointer,
      `${site.label} uses unknown keyword '${keyword}' (ignored by validators)`,
      'Check the spelling against JSON Schema 2020-12 (properties, required, items, ...); annotations of your own should start with x-.',
    );
  }
  captured = [];
  try {
    const validate = lenient.compile(schema) as SchemaValidator;
    for (const warning of new Set(captured)) {
      issues.warning(
        'schema',
        site.file,
        site.pointer,
        `${site.label}: ${warning}`,
        'Use a format ajv-formats knows (date-time, email, uri, ...).',
      );
    }
    return validate;
  } catch (cause) {
    issues.error(
      'schema',
      site.file,
      site.pointer,
      `${site.label} does not compile: ${firstLine(cause)}`,
      'Fix the reference or keyword named above.',
    );
    return null;
  } finally {
    captured = [];
    // Compiled schemas are cached by object: drop them so reloading packages does not grow memory.
    lenient.removeSchema(schema);
  }
}

/** The ajv errors of a failed validation, one short clause each. */
export function formatValidationErrors(errors: readonly ErrorObject[]): string {
  return errors
    .map((error) => {
      const where = error.instancePath === '' ? '(root)' : error.instancePath;
      const params = error.params as Record<string, unknown>;
      const detail = error.keyword === 'additionalProperties' ? ` '${String(params.additionalProperty)}'` : '';
      return `${where} ${error.message ?? error.keyword}${detail}`;
    })
    .join('; ');
}

function unknownKeywords(schema: Record<string, unknown>): string[] {
  const { keywordCheck } = ajv();
  captured = [];
  try {
    keywordCheck.compile(schema);
  } catch {
    // Compile errors are reported by the lenient compile.
  } finally {
    keywordCheck.removeSchema(schema);
  }
  const keywords = captured.map((warning) => /unknown keyword: "([^"]+)"/.exec(warning)?.[1]).filter((k): k is string => k !== undefined);
  captured = [];
  return [...new Set(keywords)].filter((keyword) => !keyword.startsWith('x-'));
}

function formatSchemaErrors(errors: readonly ErrorObject[]): string {
  // A wrong `type` yields three errors (enum, array, anyOf); the first of each path says it best.
  const seen = new Set<string>();
  const clauses: string[] = [];
  for (const error of errors) {
    if (seen.has(error.instancePath)) continue;
    seen.add(error.instancePath);
    const params = error.params as Record<string, unknown>;
    const detail = error.keyword === 'enum' ? ` ${JSON.stringify(params.allowedValues)}` : '';
    clauses.push(`${error.instancePath || '(root)'} ${error.message ?? error.keyword}${detail}`);
  }
  return clauses.join('; ');
}

function firstLine(cause: unknown): string {
  const message = cause instanceof Error ? cause.message : String(cause);
  return message.split('\n')[0];
}
