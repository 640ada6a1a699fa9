import type { Conjunction } from './conjunction.js';
import { childPointer } from './json-pointer.js';
import { numberKeyword } from './keywords.js';

/** A count limit (`minLength`, `maxItems`, ...) in force, with the pointer of the keyword. */
export interface Limit {
  readonly value: number;
  readonly pointer: string;
}

/** A numeric bound in force; for integers it is normalised to an inclusive whole number. */
export interface Bound {
  readonly value: number;
  readonly exclusive: boolean;
  readonly pointer: string;
}

function limits(conjunction: Conjunction, keyword: string): Limit[] {
  return conjunction.parts.flatMap((part) => {
    const value = numberKeyword(part.node, keyword);
    return value === undefined ? [] : [{ value, pointer: childPointer(part.pointer, keyword) }];
  });
}

/** The largest value of a lower-limit keyword among the parts (the one that binds). */
export function bindingMinimum(conjunction: Conjunction, keyword: string): Limit | undefined {
  return limits(conjunction, keyword).reduce<Limit | undefined>(
    (best, limit) => (best && best.value >= limit.value ? best : limit),
    undefined,
  );
}

/** The smallest value of an upper-limit keyword among the parts (the one that binds). */
export function bindingMaximum(conjunction: Conjunction, keyword: string): Limit | undefined {
  return limits(conjunction, keyword).reduce<Limit | undefined>(
    (best, limit) => (best && best.value <= limit.value ? best : limit),
    undefined,
  );
}

/** Every `multipleOf` in force. */
export function multiplesInForce(conjunction: Conjunction): Limit[] {
  return limits(conjunction, 'multipleOf');
}

function bounds(conjunction: Conjunction, side: 'lower' | 'upper', integer: boolean): Bound[] {
  const [inclusive, exclusive] = side === 'lower' ? ['minimum', 'exclusiveMinimum'] : ['maximum', 'exclusiveMaximum'];
  const found = [
    ...limits(conjunction, inclusive).map((limit) => ({ ...limit, exclusive: false })),
    ...limits(conjunction, exclusive).map((limit) => ({ ...limit, exclusive: true })),
  ];
  return integer ? found.map((bound) => toIntegerBound(bound, side)) : found;
}

function toIntegerBound(bound: Bound, side: 'lower' | 'upper'): Bound {
  if (side === 'lower')
    return { ...bound, exclusive: false, value: bound.exclusive ? Math.floor(bound.value) + 1 : Math.ceil(bound.value) };
  return { ...bound, exclusive: false, value: bound.exclusive ? Math.ceil(bound.value) - 1 : Math.floor(bound.value) };
}

/** True when `candidate` admits fewer numbers than `current` on that side. */
export function isTighter(candidate: Bound | undefined, current: Bound | undefined, side: 'lower' | 'upper'): boolean {
  if (candidate === undefined) return false;
  if (current === undefined) return true;
  if (candidate.value !== current.value) return side === 'lower' ? candidate.value > current.value : candidate.value < current.value;
  return candidate.exclusive && !current.exclusive;
}

/** The binding lower or upper numeric bound (`minimum`/`exclusiveMinimum` or the maximum pair). */
export function bindingBound(conjunction: Conjunction, side: 'lower' | 'upper', integer: boolean): Bound | undefined {
  return bounds(conjunction, side, integer).reduce<Bound | undefined>(
    (best, bound) => (isTighter(bound, best, side) ? bound : best),
    undefined,
  );
}

/** True when no number (or integer) lies between the binding bounds. */
export function numericRangeIsEmpty(conjunction: Conjunction, integer: boolean): boolean {
  const lower = bindingBound(conjunction, 'lower', integer);
  const upper = bindingBound(conjunction, 'upper', integer);
  if (lower === undefined || upper === undefined) return false;
  return lower.value > upper.value || (lower.value === upper.value && (lower.exclusive || upper.exclusive));
}

/** True when the binding minimum of a count exceeds its binding maximum. */
export function countRangeIsEmpty(conjunction: Conjunction, minKeyword: string, maxKeyword: string): boolean {
  const min = bindingMinimum(conjunction, minKeyword);
  const max = bindingMaximum(conjunction, maxKeyword);
  return min !== undefined && max !== undefined && min.value > max.value;
}
