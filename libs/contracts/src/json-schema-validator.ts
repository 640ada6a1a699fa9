import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { LRUCache } from 'lru-cache';
import { schemaRegExp } from './schema-pattern.js';
import { linearUniqueItems } from './unique-items.js';

// ajv-formats is CommonJS; under ESM its function is the default export's default.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => Ajv2020;

const MAX_KEYED_VALIDATORS = 2000;

/**
 * Most violations one validation lists; one more entry then says how many were left out. Every violation is found
 * (Ajv's allErrors), but a 1 MiB request of 200,000 wrong items made 200,000 of them, 11 MB of problem details (and a
 * handler's 1 MiB output as much in its execution's stored error and events).
 */
const MAX_LISTED_VIOLATIONS = 100;

/** One schema violation, located by JSON pointer in the validated document. */
export interface SchemaViolation {
  pointer: string;
  message: string;
}

/**
 * Validates documents against stored JSON Schemas (draft 2020-12). Compiled validators are cached
 * per schema object, so a hot path pays the compile cost once per stored version.
 */
export class JsonSchemaValidator {
  private instance: Ajv2020 | null = null;
  private readonly compiled = new WeakMap<object, ValidateFunction>();
  private readonly compiledByKey = new LRUCache<string, ValidateFunction>({ max: MAX_KEYED_VALIDATORS });

  /** Made on the first compile: the processes hold several validators, and a start need not pay for them. */
  private get ajv(): Ajv2020 {
    if (this.instance === null) {
      // The schemas are publishers': patterns on the linear-time engine where they can be (see schema-pattern.ts),
      // uniqueItems in linear time (see unique-items.ts).
      this.instance = linearUniqueItems(
        new Ajv2020({ allErrors: true, strict: false, validateFormats: true, code: { regExp: schemaRegExp } }),
      );
      addFormats(this.instance);
    }
    return this.instance;
  }

  /**
   * The violations of `document` against `schema` (empty when valid). Pass `cacheKey` (e.g. a content
   * hash) when equal schemas arrive as fresh objects, so they compile once.
   */
  validate(schema: Record<string, unknown>, document: unknown, cacheKey?: string): SchemaViolation[] {
    let validateFn = cacheKey === undefined ? this.compiled.get(schema) : this.compiledByKey.get(cacheKey);
    if (!validateFn) {
      validateFn = this.ajv.compile(schema);
      if (cacheKey === undefined) this.compiled.set(schema, validateFn);
      else {
        this.compiledByKey.set(cacheKey, validateFn);
      }
    }
    if (validateFn(document)) return [];
    const errors = validateFn.errors ?? [];
    const listed = errors.slice(0, MAX_LISTED_VIOLATIONS).map(toViolation);
    const unlisted = errors.length - listed.length;
    if (unlisted > 0) listed.push({ pointer: '/', message: `${unlisted.toLocaleString('en-US')} more violations not listed` });
    return listed;
  }
}

function toViolation(error: ErrorObject): SchemaViolation {
  const pointer = error.instancePath || '/';
  if (error.keyword === 'additionalProperties') {
    return { pointer, message: `unknown property '${String(error.params.additionalProperty)}'` };
  }
  if (error.keyword === 'required') {
    return { pointer, message: `missing required property '${String(error.params.missingProperty)}'` };
  }
  return { pointer, message: error.message ?? `fails ${error.keyword}` };
}
