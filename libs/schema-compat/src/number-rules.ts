import { CHANGE_KINDS } from './change-kinds.js';
import type { SchemaChange } from './compatibility-report.js';
import { type Conjunction, conjunctionAt } from './conjunction.js';
import { type Bound, bindingBound, isTighter, multiplesInForce } from './constraints.js';
import { isMultipleOf } from './fraction.js';
import { childPointer } from './json-pointer.js';
import { numberKeyword } from './keywords.js';
import { basePointer } from './property-model.js';
import { changeOfFinding } from './reporting.js';
import type { Located } from './schema-document.js';

function showBound(bound: Bound | undefined, side: 'lower' | 'upper'): string {
  if (bound === undefined) return 'none';
  const sign = side === 'lower' ? (bound.exclusive ? '>' : '>=') : bound.exclusive ? '<' : '<=';
  return `${sign} ${bound.value}`;
}

function boundChanges(sub: Conjunction, supSide: Conjunction, sup: Located, integer: boolean): SchemaChange[] {
  const noun = integer ? 'integers' : 'numbers';
  return (['lower', 'upper'] as const).flatMap((side) => {
    const subBound = bindingBound(sub, side, integer);
    const supBound = bindingBound(supSide, side, integer);
    const breaking = isTighter(supBound, subBound, side);
    if (!breaking && !isTighter(subBound, supBound, side)) return [];
    const outside = side === 'lower' ? (supBound?.exclusive ? 'up to' : 'below') : supBound?.exclusive ? 'from' : 'above';
    return [
      changeOfFinding(sub.doc.side, {
        kind: side === 'lower' ? CHANGE_KINDS.minimum : CHANGE_KINDS.maximum,
        breaking,
        subPointer: subBound?.pointer ?? basePointer(sub),
        supPointer: supBound?.pointer ?? sup.pointer,
        subject: side === 'lower' ? 'the lower bound (minimum/exclusiveMinimum)' : 'the upper bound (maximum/exclusiveMaximum)',
        subValue: showBound(subBound, side),
        supValue: showBound(supBound, side),
        gap: `${noun} ${outside} ${supBound?.value}`,
      }),
    ];
  });
}

/** multipleOf: the sup side's divisor must divide one in force on the sub side (integers are multiples of 1). */
function multipleChanges(sub: Conjunction, sup: Located, integer: boolean): SchemaChange[] {
  const divisor = numberKeyword(sup.node as Record<string, unknown>, 'multipleOf');
  const multiples = multiplesInForce(sub);
  const shown = multiples.length === 0 ? 'none' : multiples.map((limit) => limit.value).join(' and ');
  const finding = { subject: 'multipleOf', subValue: shown, supValue: divisor === undefined ? 'none' : String(divisor) };
  if (divisor === undefined) {
    if (multiples.length === 0) return [];
    const located = { subPointer: multiples[0].pointer, supPointer: sup.pointer };
    return [changeOfFinding(sub.doc.side, { ...finding, ...located, kind: CHANGE_KINDS.multipleOf, breaking: false, gap: '' })];
  }
  const supPointer = childPointer(sup.pointer, 'multipleOf');
  const dividing = multiples.find((limit) => isMultipleOf(limit.value, divisor));
  if (dividing !== undefined || (integer && isMultipleOf(1, divisor))) {
    if (dividing === undefined || dividing.value === divisor || multiples.some((limit) => limit.value === divisor)) return [];
    const located = { subPointer: dividing.pointer, supPointer };
    return [changeOfFinding(sub.doc.side, { ...finding, ...located, kind: CHANGE_KINDS.multipleOfChanged, breaking: false, gap: '' })];
  }
  const kind = multiples.length === 0 ? CHANGE_KINDS.multipleOf : CHANGE_KINDS.multipleOfChanged;
  const located = { subPointer: multiples[0]?.pointer ?? basePointer(sub), supPointer };
  const gap = `${integer ? 'integers' : 'numbers'} that are not multiples of ${divisor}`;
  return [changeOfFinding(sub.doc.side, { ...finding, ...located, kind, breaking: true, gap })];
}

/** Compares the numeric keywords for numbers, or for integers only when `integer` is set. */
export function compareNumbers(sub: Conjunction, sup: Located, integer: boolean): SchemaChange[] {
  return [...boundChanges(sub, conjunctionAt(sup), sup, integer), ...multipleChanges(sub, sup, integer)];
}
