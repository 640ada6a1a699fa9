import type { Conjunction } from './conjunction.js';
import { bindingBound, bindingMaximum } from './constraints.js';
import type { JsonType } from './json-types.js';

/** Integer ranges up to this many values are enumerated. */
const MAX_ENUMERATED_INTEGERS = 64;

/**
 * A finite list containing every instance of the conjunction, when one is evident: a `const`, an
 * `enum`, `null`/booleans, a small integer range, the empty string. Values in it may still be invalid
 * under the conjunction; callers filter them. Undefined when the instances are not evidently finite.
 */
export function finiteCandidates(conjunction: Conjunction, types: readonly JsonType[]): unknown[] | undefined {
  for (const part of conjunction.parts) if ('const' in part.node) return [part.node.const];
  for (const part of conjunction.parts) if (Array.isArray(part.node.enum)) return part.node.enum;
  const values: unknown[] = [];
  for (const type of types) {
    const ofType = valuesOfType(conjunction, type);
    if (ofType === undefined) return undefined;
    values.push(...ofType);
  }
  return values;
}

function valuesOfType(conjunction: Conjunction, type: JsonType): unknown[] | undefined {
  switch (type) {
    case 'null':
      return [null];
    case 'boolean':
      return [false, true];
    case 'integer':
      return integerRange(conjunction);
    case 'string':
      return bindingMaximum(conjunction, 'maxLength')?.value === 0 ? [''] : undefined;
    default:
      return undefined;
  }
}

function integerRange(conjunction: Conjunction): number[] | undefined {
  const lower = bindingBound(conjunction, 'lower', true);
  const upper = bindingBound(conjunction, 'upper', true);
  if (lower === undefined || upper === undefined || upper.value - lower.value >= MAX_ENUMERATED_INTEGERS) return undefined;
  const values: number[] = [];
  for (let value = lower.value; value <= upper.value; value += 1) values.push(value);
  return values;
}
