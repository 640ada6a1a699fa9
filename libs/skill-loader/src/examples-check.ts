import ajvModule, { type ErrorObject } from 'ajv';
import Ajv2020Module from 'ajv/dist/2020.js';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import addFormatsModule from 'ajv-formats';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { LRUCache } from 'lru-cache';
import { SCHEMA_REGEXP_MODULE, schemaRegExp } from '#contracts/schema-pattern.js';
import { SCHEMA_KEYWORDS_MODULE, duplicateItems, inEnum, linearKeywords } from '#contracts/schema-keywords.js';
import type { SkillExample } from './definition.js';
import { IssueList } from './issues.js';
import type { SchemaRole } from './schema-check.js';

// CommonJS modules whose module.exports also carries `.default`: that is the form typed under NodeNext.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;
const standaloneCode = standaloneCodeModule.default;
const { _ } = ajvModule;

type Ajv = InstanceType<typeof Ajv2020>;

const MAX_RECENT_VALIDATORS = 256;
type ValidateFunction = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

const requireForValidators = createRequire(import.meta.url);
/** Part of every cached validator's key: a change of ajv or of these options must not reuse old code. */
const VALIDATOR_KEY = [
  `ajv@${(requireForValidators('ajv/package.json') as { version: string }).version}`,
  `ajv-formats@${(requireForValidators('ajv-formats/package.json') as { version: string }).version}`,
  'draft2020;firstError;strict=false;formats=full;optimize=false;regExp=schemaRegExp;uniqueItems=linear;enum=linear',
].join(';');

/**
 * Validates declared examples against a package's JSON Schemas (draft 2020-12), each up to its first violation: the
 * examples are a publisher's, up to 10 MiB, and Ajv's allErrors makes an error object per failing keyword (every branch of
 * a union included), millions of them in the registry's heap for such an example (see JsonSchemaValidator).
 * Compiling a validator costs milliseconds, most of a warm start: compiled validators are kept on disk as
 * standalone code, keyed by a hash of the schema, and reused by later starts.
 */
export class ExampleValidator {
  private readonly ajv: Ajv;
  /** Validators by schema text, so packages sharing a schema (versions of one skill) compile it once. */
  private readonly recent = new LRUCache<string, ValidateFunction>({ max: MAX_RECENT_VALIDATORS });

  /** `cacheDir`: where compiled validators are kept; null to compile every time. */
  constructor(private readonly cacheDir: string | null) {
    this.ajv = linearKeywords(
      new Ajv2020({
        strict: false,
        // No optimisation pass over the generated code: a validator here checks a package's few examples once, and
        // the pass cost about 15% of each compile (0.81 against 0.68 ms), the registry's largest CPU item at a
        // first start with many new packages. It changes the code's shape, never what it accepts.
        code: {
          source: cacheDir !== null,
          optimize: false,
          formats: _`require("ajv-formats/dist/formats").fullFormats`,
          regExp: schemaRegExp, // publishers' patterns on the linear-time engine where they can be (see schema-pattern.ts)
        },
      }),
    ); // and uniqueItems and enum in linear time (see schema-keywords.ts)
    addFormats(this.ajv);
  }

  /** One issue per example side (input or output) that does not match its schema. */
  check(examples: SkillExample[], jsonSchemas: Record<SchemaRole, Record<string, unknown> | null>, issues: IssueList): void {
    for (const role of ['input', 'output'] as const) {
      const jsonSchema = jsonSchemas[role];
      if (jsonSchema === null || !examples.some((example) => example[role] !== undefined)) continue;
      let validate: ValidateFunction;
      try {
        validate = this.validatorFor(jsonSchema);
      } catch (error) {
        issues.error(
          'schema',
          'schema.ts',
          '',
          `the ${role} JSON Schema does not compile: ${String(error)}`,
          'Simplify the zod schema (custom formats and keywords are not portable).',
        );
        continue;
      }
      examples.forEach((example, index) => {
        const value = example[role];
        if (value === undefined || validate(value)) return;
        issues.error(
          'examples',
          'definition.json',
          `/examples/${index}/${role}`,
          `example ${index}${example.description ? ` ("${example.description}")` : ''} ${role} does not match the ${role} schema: ${formatAjvErrors(validate.errors ?? [])}`,
          role === 'input'
            ? `Fix examples[${index}].input so the skill would accept it, or fix the input schema.`
            : `Fix examples[${index}].output to what the skill returns for that input, or fix the output schema.`,
        );
      });
    }
  }

  private validatorFor(jsonSchema: Record<string, unknown>): ValidateFunction {
    const text = JSON.stringify(jsonSchema);
    let validate = this.recent.get(text);
    if (!validate) {
      validate = this.compile(jsonSchema, text);
      this.recent.set(text, validate);
    }
    return validate;
  }

  private compile(jsonSchema: Record<string, unknown>, text: string): ValidateFunction {
    const file =
      this.cacheDir === null ? null : join(this.cacheDir, `${createHash('sha256').update(VALIDATOR_KEY).update(text).digest('hex')}.cjs`);
    if (file !== null) {
      const cached = loadStandalone(file);
      if (cached) return cached;
    }
    const validate = this.ajv.compile(jsonSchema);
    try {
      if (file !== null) storeStandalone(file, standaloneCode(this.ajv, validate));
    } finally {
      // Compiled validators are cached by schema: drop them so reloading packages does not grow memory.
      this.ajv.removeSchema(jsonSchema);
    }
    return validate;
  }
}

/**
 * The `require` of cached validator code: schemaRegExp and duplicateItems by their module names (SCHEMA_REGEXP_MODULE,
 * SCHEMA_KEYWORDS_MODULE), the rest as here.
 */
function requireInValidators(id: string): unknown {
  if (id === SCHEMA_REGEXP_MODULE) return { schemaRegExp };
  if (id === SCHEMA_KEYWORDS_MODULE) return { duplicateItems, inEnum };
  return requireForValidators(id);
}

function loadStandalone(file: string): ValidateFunction | null {
  let code: string;
  try {
    code = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  try {
    const module = { exports: {} as unknown };
    new Function('module', 'exports', 'require', code)(module, module.exports, requireInValidators);
    return typeof module.exports === 'function' ? (module.exports as ValidateFunction) : null;
  } catch {
    return null;
  }
}

function storeStandalone(file: string, code: string): void {
  // In the background (a synchronous write costs as much as the compile), to a temporary name then renamed:
  // a concurrent start never reads a half-written validator. A cache that cannot be written only costs speed.
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  void writeFile(temporary, code)
    .then(() => rename(temporary, file))
    .catch(() => unlink(temporary).catch(() => undefined));
}

function formatAjvErrors(errors: ErrorObject[]): string {
  // A format check comes with the pattern zod derives from it: the pattern error only repeats it, unreadably.
  const formatPaths = new Set(errors.filter((error) => error.keyword === 'format').map((error) => error.instancePath));
  return errors
    .filter((error) => !(error.keyword === 'pattern' && formatPaths.has(error.instancePath)))
    .map((error) => {
      const where = error.instancePath === '' ? '(root)' : error.instancePath;
      const params = error.params as Record<string, unknown>;
      const detail =
        error.keyword === 'additionalProperties'
          ? ` '${String(params.additionalProperty)}'`
          : error.keyword === 'enum'
            ? ` ${JSON.stringify(params.allowedValues)}`
            : '';
      const message = `${error.message ?? error.keyword}${detail}`;
      return `${where} ${message.length > 160 ? `${message.slice(0, 157)}...` : message}`;
    })
    .join('; ');
}
