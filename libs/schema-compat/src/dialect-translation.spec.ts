import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { checkCompatibility } from './check-compatibility.js';
import { compileIn } from './corpus/dialect-validators.js';
import { sampleInstances } from './corpus/instance-samples.js';
import type { TranslatedSchema } from './dialect-translation.js';
import { dialectOf } from './dialects.js';
import { InvalidSchemaError } from './invalid-schema-error.js';
import { MODELLED_KEYWORDS, type SchemaNode, UNSUPPORTED_KEYWORDS } from './keywords.js';
import { readSchema } from './schema-reading.js';

interface Case {
  name: string;
  old: unknown;
  new: unknown;
}

const cases = (JSON.parse(readFileSync(new URL('./corpus/draft-07-cases.json', import.meta.url), 'utf8')) as { cases: Case[] }).cases;

/**
 * Cases where Ajv departs from the dialect's specification, so it cannot serve as the oracle: with
 * ignoreKeywordsWithRef it still checks a `type` beside `$ref`, and reads an `$id` there (recursing
 * without end on this one), which draft-07 8.3 says to ignore; its `$dynamicRef` finds a `$dynamicAnchor`
 * only at a resource's root (2020-12 8.2.3.2: anywhere in the resource), so it lets `{"p": 5}` through a
 * `$dynamicRef` to a string definition.
 */
const AJV_DEPARTS = new Set([
  'a sibling of $ref dropped',
  '$id beside $ref is ignored in draft-07',
  '$dynamicRef target narrowed behind equal references',
]);

/** The schema read by the checker, or undefined when it refuses it. */
function readable(schema: unknown): TranslatedSchema | undefined {
  try {
    return readSchema(schema, 'old');
  } catch (error) {
    if (error instanceof InvalidSchemaError) return undefined;
    throw error;
  }
}

describe('translation into 2020-12 keywords', () => {
  it('accepts the same instances as the schema read in its own dialect, over every schema of the draft-07 corpus', () => {
    let compared = 0;
    cases.forEach((entry, index) => {
      if (AJV_DEPARTS.has(entry.name)) return;
      for (const schema of [entry.old, entry.new]) {
        const read = readable(schema);
        if (read === undefined) continue;
        const own = compileIn(read.dialect, schema);
        const translated = compileIn('translated', read.root);
        if (own === null) continue;
        expect(translated).not.toBeNull();
        for (const instance of sampleInstances([schema], 150, index)) {
          compared += 1;
          if (own(instance) !== translated?.(instance)) {
            throw new Error(`${entry.name}: ${JSON.stringify(instance)} is ${own(instance) ? 'valid' : 'invalid'} in ${read.dialect} only`);
          }
        }
      }
    });
    expect(compared).toBeGreaterThan(20_000);
  });

  it('leaves no instance valid under the old schema and invalid under the new one where the corpus answer is "compatible"', () => {
    cases.forEach((entry, index) => {
      if (AJV_DEPARTS.has(entry.name)) return;
      let compatible: boolean;
      try {
        compatible = checkCompatibility(entry.old, entry.new, 'backward').compatible;
      } catch {
        return;
      }
      if (!compatible) return;
      const before = compileIn(dialectOf(entry.old as SchemaNode, 'old'), entry.old);
      const after = compileIn(dialectOf(entry.new as SchemaNode, 'new'), entry.new);
      if (before === null || after === null) throw new Error(`${entry.name}: Ajv cannot compile it`);
      const broken = sampleInstances([entry.old, entry.new], 300, index).find((instance) => before(instance) && !after(instance));
      if (broken !== undefined) throw new Error(`${entry.name}: ${JSON.stringify(broken)} breaks a "compatible" verdict`);
    });
  });

  it('classifies every keyword Ajv validates in each dialect', () => {
    // Translated away (dependencies, additionalItems), or inert for the checker: then/else/minContains/maxContains
    // act through if/contains, the anchors only name targets, nullable is read into type, id is draft-04's $id.
    const handled = new Set<string>([
      ...MODELLED_KEYWORDS,
      ...UNSUPPORTED_KEYWORDS,
      ...['dependencies', 'additionalItems', 'then', 'else', 'minContains', 'maxContains', 'nullable'],
      ...['$comment', 'id', '$dynamicAnchor', '$recursiveAnchor'],
    ]);
    for (const ajv of [new Ajv({ strict: false }), new Ajv2019({ strict: false }), new Ajv2020({ strict: false })]) {
      expect(Object.keys(ajv.RULES.all).filter((keyword) => !handled.has(keyword))).toEqual([]);
    }
  });
});
