import type { Comparison } from './comparison.js';
import { type Conjunction, conjunctionOf, expandConjunction, splitDisjunction } from './conjunction.js';
import { bindingBound, bindingMaximum, bindingMinimum, countRangeIsEmpty, isTighter } from './constraints.js';
import { finiteCandidates } from './finite-values.js';
import { type JsonType, intersectTypes } from './json-types.js';
import { possibleTypes } from './possible-types.js';
import { requiredNames, schemasForName } from './property-model.js';

/** Beyond this nesting the checker stops looking for a proof of disjointness. */
const MAX_DEPTH = 4;

function finiteProof(comparison: Comparison, finite: Conjunction, types: readonly JsonType[], other: Conjunction): boolean | undefined {
  const candidates = finiteCandidates(finite, types);
  if (candidates === undefined) return undefined;
  for (const value of candidates) {
    const inFinite = comparison.oracle.acceptsInConjunction(finite, value);
    const inOther = comparison.oracle.acceptsInConjunction(other, value);
    if (inFinite === undefined || inOther === undefined) return undefined;
    if (inFinite && inOther) return false;
  }
  return true;
}

function countsDisjoint(left: Conjunction, right: Conjunction, min: string, max: string): boolean {
  const low = Math.max(bindingMinimum(left, min)?.value ?? 0, bindingMinimum(right, min)?.value ?? 0);
  const high = Math.min(bindingMaximum(left, max)?.value ?? Infinity, bindingMaximum(right, max)?.value ?? Infinity);
  return low > high || countRangeIsEmpty(left, min, max) || countRangeIsEmpty(right, min, max);
}

function rangesDisjoint(left: Conjunction, right: Conjunction, integer: boolean): boolean {
  const pick = (side: 'lower' | 'upper') => {
    const [a, b] = [bindingBound(left, side, integer), bindingBound(right, side, integer)];
    return isTighter(a, b, side) ? a : b;
  };
  const lower = pick('lower');
  const upper = pick('upper');
  if (lower === undefined || upper === undefined) return false;
  return lower.value > upper.value || (lower.value === upper.value && (lower.exclusive || upper.exclusive));
}

function objectsDisjoint(comparison: Comparison, left: Conjunction, right: Conjunction, depth: number): boolean {
  if (countsDisjoint(left, right, 'minProperties', 'maxProperties')) return true;
  const names = new Set([...requiredNames(left).keys(), ...requiredNames(right).keys()]);
  return [...names].some((name) =>
    disjoint(
      comparison,
      conjunctionOf(left.doc, schemasForName(left, name)),
      conjunctionOf(right.doc, schemasForName(right, name)),
      depth + 1,
    ),
  );
}

function disjointWithin(comparison: Comparison, left: Conjunction, right: Conjunction, type: JsonType, depth: number): boolean {
  switch (type) {
    case 'string':
      return countsDisjoint(left, right, 'minLength', 'maxLength');
    case 'number':
    case 'integer':
      return rangesDisjoint(left, right, type === 'integer');
    case 'array':
      return countsDisjoint(left, right, 'minItems', 'maxItems');
    case 'object':
      return objectsDisjoint(comparison, left, right, depth);
    default:
      return false;
  }
}

/**
 * True when no instance is valid under both conjunctions, as far as can be proven: different types,
 * finite sets with no common value, disjoint ranges, a negation covering the other side, or a required
 * property whose schemas are disjoint (a discriminator). False means "not proven", not "overlapping".
 */
export function disjoint(comparison: Comparison, leftInput: Conjunction, rightInput: Conjunction, depth = 0): boolean {
  const left = expandConjunction(leftInput);
  const right = expandConjunction(rightInput);
  const leftTypes = possibleTypes(left);
  const rightTypes = possibleTypes(right);
  const shared = intersectTypes(leftTypes, rightTypes);
  if (shared.length === 0) return true;
  if (depth > MAX_DEPTH) return false;
  if (
    left.negated.some((negated) => comparison.holds(right, negated)) ||
    right.negated.some((negated) => comparison.holds(left, negated))
  ) {
    return true;
  }
  const proof = finiteProof(comparison, left, leftTypes, right) ?? finiteProof(comparison, right, rightTypes, left);
  if (proof !== undefined) return proof;
  const leftBranches = splitDisjunction(left);
  if (leftBranches) return leftBranches.every((branch) => disjoint(comparison, branch, right, depth + 1));
  const rightBranches = splitDisjunction(right);
  if (rightBranches) return rightBranches.every((branch) => disjoint(comparison, left, branch, depth + 1));
  return shared.every((type) => disjointWithin(comparison, left, right, type, depth));
}
