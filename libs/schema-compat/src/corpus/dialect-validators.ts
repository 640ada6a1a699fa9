// Test support: Ajv validators that read a schema in the dialect its $schema names, as that dialect's
// specification does, independently of the checker's translation into 2020-12.
import { createRequire } from 'node:module';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Dialect } from '../dialects.js';

type AnyAjv = Ajv | Ajv2019 | Ajv2020;

// ajv-formats is CommonJS; under ESM its function is the default export's default.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: AnyAjv,
) => AnyAjv;

// draft-07 8.3: keywords beside $ref are ignored (Ajv applies them unless told otherwise).
const OPTIONS: Options = { strict: false, logger: false, validateFormats: true, ignoreKeywordsWithRef: true };

function createAjv(dialect: Dialect | 'translated'): AnyAjv {
  // A translation is checked against no meta-schema: it may keep 2019-09's $recursiveRef, which Ajv2020 applies.
  if (dialect === 'translated') return addFormats(new Ajv2020({ ...OPTIONS, ignoreKeywordsWithRef: false, validateSchema: false }));
  if (dialect === '2020-12') return addFormats(new Ajv2020({ ...OPTIONS, ignoreKeywordsWithRef: false }));
  if (dialect === '2019-09') return addFormats(new Ajv2019({ ...OPTIONS, ignoreKeywordsWithRef: false }));
  const ajv = addFormats(new Ajv(OPTIONS)) as Ajv;
  if (dialect === 'draft-06') {
    ajv.addMetaSchema(createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-06.json'));
    // Ajv reads draft-06 with draft-07's vocabulary; draft-06 has no if/then/else.
    for (const keyword of ['if', 'then', 'else']) ajv.removeKeyword(keyword);
  }
  return ajv;
}

const instances = new Map<string, AnyAjv>();

/**
 * Compiles `schema` as its dialect reads it (`translated`: a translation, read as 2020-12) and returns
 * a validator, or null when Ajv cannot compile it. The schema is not kept, so equal `$id`s do not clash.
 */
export function compileIn(dialect: Dialect | 'translated', schema: unknown): ValidateFunction | null {
  let ajv = instances.get(dialect);
  if (ajv === undefined) {
    ajv = createAjv(dialect);
    instances.set(dialect, ajv);
  }
  const copy = typeof schema === 'boolean' ? schema : structuredClone(schema as object);
  try {
    return ajv.compile(copy);
  } catch {
    return null;
  } finally {
    if (typeof copy === 'object') ajv.removeSchema(copy);
  }
}
