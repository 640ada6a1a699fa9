import { type Conjunction, expandConjunction } from './conjunction.js';
import { countRangeIsEmpty, multiplesInForce, numericRangeIsEmpty } from './constraints.js';
import { ALL_TYPES, type JsonType, intersectTypes, nodeTypes } from './json-types.js';
import { requiredNames, schemasForName } from './property-model.js';

/**
 * The instance types a conjunction can have a valid instance of: what `type`, `const` and `enum` allow,
 * less the types whose own constraints contradict (minLength above maxLength, an empty numeric range,
 * a required property whose schema is `false`, ...). Numbers that must be whole count as `integer`.
 */
export function possibleTypes(conjunction: Conjunction): JsonType[] {
  if (conjunction.empty) return [];
  let types = conjunction.parts.reduce<JsonType[]>((found, part) => intersectTypes(found, nodeTypes(part.node)), [...ALL_TYPES]);
  if (types.includes('number') && multiplesInForce(conjunction).some((limit) => Number.isInteger(limit.value))) {
    types = types.map((type) => (type === 'number' ? 'integer' : type));
  }
  return types.filter((type) => !contradicts(conjunction, type));
}

function contradicts(conjunction: Conjunction, type: JsonType): boolean {
  switch (type) {
    case 'string':
      return countRangeIsEmpty(conjunction, 'minLength', 'maxLength');
    case 'number':
    case 'integer':
      return numericRangeIsEmpty(conjunction, type === 'integer');
    case 'array':
      return countRangeIsEmpty(conjunction, 'minItems', 'maxItems');
    case 'object':
      return (
        countRangeIsEmpty(conjunction, 'minProperties', 'maxProperties') ||
        [...requiredNames(conjunction).keys()].some((name) => schemasForName(conjunction, name).some((schema) => schema.node === false))
      );
    default:
      return false;
  }
}

/** True when no instance at all is valid under the conjunction, as far as types and bounds show. */
export function admitsNothing(conjunction: Conjunction): boolean {
  return possibleTypes(expandConjunction(conjunction)).length === 0;
}
