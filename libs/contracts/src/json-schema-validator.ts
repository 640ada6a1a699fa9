import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { LRUCache } from 'lru-cache';
import { schemaRegExp } from './schema-pattern.js';
import { linearKeywords } from './schema-keywords.js';

// ajv-formats is CommonJS; under ESM its function is the default export's default.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => Ajv2020;

const MAX_KEYED_VALIDATORS = 2000;

/**
 * Most violations one validation lists; one more entry then says how many were left out: 200,000 wrong items in a 1 MiB
 * request made 200,000 of them, 11 MB of problem details (and a handler's 1 MiB output as much in its execution's
 * stored error and events).
 */
const MAX_LISTED_VIOLATIONS = 100;

/**
 * How far every violation is looked for: up to this many (document value, schema keyword) pairs. Ajv's allErrors makes
 * an error object for each failing keyword, branches of anyOf and oneOf included: a 10-branch union over 300,000 empty
 * objects (a 1 MiB request) made 3.3 million of them, 500 MB of the process's heap for one request, and a few such
 * requests at once ended the process. Past the bound only the first violation is reported (Ajv without allErrors,
 * which stops there), with a note saying so.
 */
const FULL_REPORT_BUDGET = 200_000;

/** One schema violation, located by JSON pointer in the validated document. */
export interface SchemaViolation {
  pointer: string;
  message: string;
}

/** A schema's validators: the one that stops at the first violation, and (made when first needed) the one that lists them all. */
interface Compiled {
  schema: Record<string, unknown>;
  first: ValidateFunction;
  every: ValidateFunction | null;
  /** Values in the schema (its keywords' values, up to FULL_REPORT_BUDGET): with the document's, a bound on what a full report costs. */
  keywords: number;
}

/**
 * Validates documents against stored JSON Schemas (draft 2020-12). A valid document costs one pass that stops at the
 * first violation; an invalid one is checked again for every violation when it is small enough for that (see
 * FULL_REPORT_BUDGET). Compiled validators are cached per schema object, so a hot path pays the compile cost once per
 * stored version.
 */
export class JsonSchemaValidator {
  private instances: { first: Ajv2020; every: Ajv2020 } | null = null;
  private readonly compiled = new WeakMap<object, Compiled>();
  private readonly compiledByKey = new LRUCache<string, Compiled>({ max: MAX_KEYED_VALIDATORS });

  /** Made on the first compile: the processes hold several validators, and a start need not pay for them. */
  private get ajv(): { first: Ajv2020; every: Ajv2020 } {
    if (this.instances === null) {
      // The schemas are publishers': patterns on the linear-time engine where they can be (see schema-pattern.ts),
      // uniqueItems and enum in linear time (see schema-keywords.ts).
      const make = (allErrors: boolean) =>
        addFormats(linearKeywords(new Ajv2020({ allErrors, strict: false, validateFormats: true, code: { regExp: schemaRegExp } })));
      this.instances = { first: make(false), every: make(true) };
    }
    return this.instances;
  }

  /**
   * The violations of `document` against `schema` (empty when valid). Pass `cacheKey` (e.g. a content
   * hash) when equal schemas arrive as fresh objects, so they compile once.
   */
  validate(schema: Record<string, unknown>, document: unknown, cacheKey?: string): SchemaViolation[] {
    let compiled = cacheKey === undefined ? this.compiled.get(schema) : this.compiledByKey.get(cacheKey);
    if (!compiled) {
      compiled = { schema, first: this.ajv.first.compile(schema), every: null, keywords: countValues(schema, FULL_REPORT_BUDGET) };
      if (cacheKey === undefined) this.compiled.set(schema, compiled);
      else this.compiledByKey.set(cacheKey, compiled);
    }
    if (compiled.first(document)) return [];
    const firstErrors = compiled.first.errors ?? [];
    if (countValues(document, Math.floor(FULL_REPORT_BUDGET / Math.max(1, compiled.keywords))) * compiled.keywords > FULL_REPORT_BUDGET) {
      return [
        ...firstErrors.slice(0, MAX_LISTED_VIOLATIONS).map(toViolation),
        { pointer: '/', message: 'only the first violation is listed: the document is too large to look for every one' },
      ];
    }
    compiled.every ??= this.ajv.every.compile(compiled.schema);
    compiled.every(document);
    const errors = compiled.every.errors ?? firstErrors;
    const listed = errors.slice(0, MAX_LISTED_VIOLATIONS).map(toViolation);
    const unlisted = errors.length - listed.length;
    if (unlisted > 0) listed.push({ pointer: '/', message: `${unlisted.toLocaleString('en-US')} more violations not listed` });
    return listed;
  }
}

/** The values in a JSON document or schema (itself, and every item and property value within), counted up to `max` + 1. */
function countValues(value: unknown, max: number): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && count <= max) {
    const next = pending.pop();
    count++;
    if (next !== null && typeof next === 'object')
      for (const child of Array.isArray(next) ? next : Object.values(next)) pending.push(child);
  }
  return count;
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
