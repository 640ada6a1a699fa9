import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { schemaRegExp } from '#contracts/schema-pattern.js';
import { linearKeywords } from '#contracts/schema-keywords.js';
import type { Conjunction } from './conjunction.js';
import { type SchemaObject, isSchemaObject } from './keywords.js';
import type { SchemaDocument } from './schema-document.js';

// ajv-formats is CommonJS; under ESM its function is the default export's default.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => Ajv2020;

/** The outcome of validating one value; `error` is the first failing keyword. */
export interface Verdict {
  readonly valid: boolean;
  readonly error?: ErrorObject;
}

const documentId = (doc: SchemaDocument) => `urn:schema-compat:${doc.side}`;

/**
 * Validates concrete values against nodes of the compared documents with Ajv. Used where the checker can
 * decide exactly by trying values: finite sets (`enum`, `const`, booleans, small integer ranges).
 * Answers undefined when a node cannot be compiled (e.g. a remote reference).
 */
export class InstanceOracle {
  private ajvInstance: Ajv2020 | undefined;
  private readonly validators = new Map<string, ValidateFunction | null>();

  constructor(private readonly documents: readonly SchemaDocument[]) {}

  /** Made on first use: most pairs are decided without validating any value. */
  private get ajv(): Ajv2020 {
    if (this.ajvInstance === undefined) {
      // The documents were validated against the meta-schema already; compiling it again per check is slow.
      const ajv = linearKeywords(
        new Ajv2020({
          strict: false,
          logger: false,
          validateFormats: true,
          validateSchema: false,
          code: { regExp: schemaRegExp },
        }),
      );
      addFormats(ajv);
      for (const doc of this.documents) {
        try {
          if (isSchemaObject(doc.root)) ajv.addSchema({ ...doc.root, $id: documentId(doc) });
        } catch {
          // e.g. the same nested $id in both documents: values cannot be tried against this one.
        }
      }
      this.ajvInstance = ajv;
    }
    return this.ajvInstance;
  }

  /** Validates `value` against the node at `pointer` of `doc`. */
  validateAt(doc: SchemaDocument, pointer: string, value: unknown): Verdict | undefined {
    const node = doc.nodeAt(pointer);
    if (typeof node === 'boolean') return { valid: node };
    const fragment = pointer.split('/').map(encodeURIComponent).join('/');
    return this.run(`${doc.side}#${pointer}`, () => ({ $ref: `${documentId(doc)}#${fragment}` }), value);
  }

  /** Validates `value` against a schema the checker made up; it holds no references. */
  validateSynthetic(node: SchemaObject, value: unknown): Verdict | undefined {
    return this.run(`synthetic:${JSON.stringify(node)}`, () => node, value);
  }

  /** True when `value` is valid under every part of the conjunction and under none of its negations. */
  acceptsInConjunction(conjunction: Conjunction, value: unknown): boolean | undefined {
    if (conjunction.empty) return false;
    for (const part of conjunction.parts) {
      const verdict =
        part.origin === null ? this.validateSynthetic(part.node, value) : this.validateAt(conjunction.doc, part.origin, value);
      if (verdict === undefined) return undefined;
      if (!verdict.valid) return false;
    }
    for (const negated of conjunction.negated) {
      const verdict = this.validateAt(negated.doc, negated.pointer, value);
      if (verdict === undefined) return undefined;
      if (verdict.valid) return false;
    }
    return true;
  }

  private run(key: string, schema: () => SchemaObject, value: unknown): Verdict | undefined {
    let validate = this.validators.get(key);
    if (validate === undefined) {
      try {
        validate = this.ajv.compile(schema());
      } catch {
        validate = null;
      }
      this.validators.set(key, validate);
    }
    if (validate === null) return undefined;
    try {
      const valid = validate(value) === true;
      return valid ? { valid } : { valid, error: validate.errors?.[0] };
    } catch {
      // A definition that refers to itself without consuming input makes Ajv recurse forever.
      return undefined;
    }
  }
}
