import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { checkCompatibility } from './check-compatibility.js';
import { InvalidSchemaError } from './invalid-schema-error.js';
import type { SchemaNode } from './keywords.js';
import { jsonValue, mentionedValues, schemaPair } from './schema-arbitraries.js';

const ajv = new Ajv2020({ strict: false, logger: false });
const compile = (schema: SchemaNode): ValidateFunction => ajv.compile(typeof schema === 'boolean' ? schema : structuredClone(schema));

/** A schema whose references dangle cannot be compiled; such a pair has nothing to check. */
function compiles(schema: SchemaNode): boolean {
  try {
    compile(schema);
    return true;
  } catch {
    return false;
  }
}

interface Tally {
  pairs: number;
  compatible: number;
  /** Compatible verdicts on two schemas that are not deep-equal. */
  compatibleDistinct: number;
  witnessed: number;
  instancesChecked: number;
}

/** The first value valid under `from` but not under `to`, if any. */
function counterexample(from: SchemaNode, to: SchemaNode, values: readonly unknown[], tally: Tally): unknown {
  const validFrom = compile(from);
  const validTo = compile(to);
  try {
    const accepted = values.filter((value) => validFrom(value));
    tally.instancesChecked += accepted.length;
    if (accepted.length > 0) tally.witnessed += 1;
    return accepted.find((value) => !validTo(value));
  } catch (error) {
    // A definition that refers to itself without consuming input makes Ajv recurse forever.
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

function expectNoCounterexample(direction: string, oldSchema: SchemaNode, newSchema: SchemaNode, value: unknown): void {
  if (value === undefined) return;
  throw new Error(`${direction}-compatible, yet ${JSON.stringify(value)} breaks it: ${JSON.stringify({ old: oldSchema, new: newSchema })}`);
}

describe('compatibility verdicts on generated schemas', () => {
  it('never calls a pair compatible when a value valid under one side is rejected by the other', () => {
    const tally: Tally = { pairs: 0, compatible: 0, compatibleDistinct: 0, witnessed: 0, instancesChecked: 0 };
    fc.assert(
      fc.property(schemaPair, fc.array(jsonValue, { minLength: 40, maxLength: 40 }), ([oldSchema, newSchema], randomValues) => {
        let report;
        try {
          report = {
            backward: checkCompatibility(oldSchema, newSchema, 'backward'),
            forward: checkCompatibility(oldSchema, newSchema, 'forward'),
          };
        } catch (error) {
          if (error instanceof InvalidSchemaError) return;
          throw error;
        }
        if (!compiles(oldSchema) || !compiles(newSchema)) return;
        tally.pairs += 2;
        const distinct = JSON.stringify(oldSchema) !== JSON.stringify(newSchema) ? 1 : 0;
        const values = [...randomValues, ...mentionedValues(oldSchema), ...mentionedValues(newSchema)];
        if (report.backward.compatible) {
          tally.compatible += 1;
          tally.compatibleDistinct += distinct;
          expectNoCounterexample('backward', oldSchema, newSchema, counterexample(oldSchema, newSchema, values, tally));
        }
        if (report.forward.compatible) {
          tally.compatible += 1;
          tally.compatibleDistinct += distinct;
          expectNoCounterexample('forward', oldSchema, newSchema, counterexample(newSchema, oldSchema, values, tally));
        }
      }),
      { numRuns: Number(process.env.SCHEMA_COMPAT_RUNS ?? 300) },
    );
    if (process.env.SCHEMA_COMPAT_RUNS) console.log(tally);
    // The property is not vacuous: a good share of verdicts are "compatible", and most of those were
    // exercised with at least one value the source side accepts.
    expect(tally.compatible / tally.pairs).toBeGreaterThan(0.25);
    expect(tally.compatibleDistinct / tally.pairs).toBeGreaterThan(0.2);
    expect(tally.compatible / tally.pairs).toBeLessThan(0.95);
    expect(tally.witnessed / tally.compatible).toBeGreaterThan(0.5);
    expect(tally.instancesChecked).toBeGreaterThan(2000);
  });
});
