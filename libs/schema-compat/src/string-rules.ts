import { CHANGE_KINDS } from './change-kinds.js';
import type { SchemaChange } from './compatibility-report.js';
import { type Conjunction, conjunctionAt } from './conjunction.js';
import { type Limit, bindingMaximum, bindingMinimum } from './constraints.js';
import { childPointer, describePointer } from './json-pointer.js';
import { stringKeyword } from './keywords.js';
import { basePointer } from './property-model.js';
import { changeOf, changeOfFinding, undecidedConsequence } from './reporting.js';
import type { Located } from './schema-document.js';

const show = (limit: Limit | undefined) => (limit === undefined ? 'none' : String(limit.value));

/** Patterns every string matches. */
const UNIVERSAL_PATTERNS = new Set(['', '.*', '^.*', '[\\s\\S]*', '^[\\s\\S]*$']);

function lengthChanges(sub: Conjunction, supSide: Conjunction, sup: Located): SchemaChange[] {
  const changes: SchemaChange[] = [];
  const subMin = bindingMinimum(sub, 'minLength');
  const supMin = bindingMinimum(supSide, 'minLength');
  const base = {
    kind: CHANGE_KINDS.minLength,
    subPointer: subMin?.pointer ?? basePointer(sub),
    supPointer: supMin?.pointer ?? sup.pointer,
  };
  const minValues = { subject: 'minLength', subValue: show(subMin), supValue: show(supMin) };
  if ((supMin?.value ?? 0) > (subMin?.value ?? 0)) {
    const gap = `strings shorter than ${supMin?.value} characters`;
    changes.push(changeOfFinding(sub.doc.side, { ...base, ...minValues, breaking: true, gap }));
  } else if ((subMin?.value ?? 0) > (supMin?.value ?? 0)) {
    changes.push(changeOfFinding(sub.doc.side, { ...base, ...minValues, breaking: false, gap: '' }));
  }
  const subMax = bindingMaximum(sub, 'maxLength');
  const supMax = bindingMaximum(supSide, 'maxLength');
  const maxBase = {
    kind: CHANGE_KINDS.maxLength,
    subPointer: subMax?.pointer ?? basePointer(sub),
    supPointer: supMax?.pointer ?? sup.pointer,
  };
  const maxValues = { subject: 'maxLength', subValue: show(subMax), supValue: show(supMax) };
  if ((supMax?.value ?? Infinity) < (subMax?.value ?? Infinity)) {
    const gap = `strings longer than ${supMax?.value} characters`;
    changes.push(changeOfFinding(sub.doc.side, { ...maxBase, ...maxValues, breaking: true, gap }));
  } else if ((subMax?.value ?? Infinity) < (supMax?.value ?? Infinity)) {
    changes.push(changeOfFinding(sub.doc.side, { ...maxBase, ...maxValues, breaking: false, gap: '' }));
  }
  return changes;
}

interface Keyworded {
  readonly value: string;
  readonly pointer: string;
}

function keywordValues(sub: Conjunction, keyword: string): Keyworded[] {
  return sub.parts.flatMap((part) => {
    const value = stringKeyword(part.node, keyword);
    return value === undefined ? [] : [{ value, pointer: childPointer(part.pointer, keyword) }];
  });
}

/**
 * Compares `pattern` or `format`. The sup side's must be one the sub side already has; a different
 * regular expression or format cannot be proven to accept a superset, so it is reported as breaking.
 */
function textualChanges(sub: Conjunction, sup: Located, keyword: 'pattern' | 'format'): SchemaChange[] {
  const supValue = keywordValues(conjunctionAt(sup), keyword)[0];
  const subValues = keywordValues(sub, keyword);
  const render = (value: string) => (keyword === 'pattern' ? `/${value}/` : `"${value}"`);
  const shown = subValues.length === 0 ? 'none' : subValues.map((item) => render(item.value)).join(' and ');
  const added = keyword === 'pattern' ? CHANGE_KINDS.pattern : CHANGE_KINDS.format;
  if (supValue === undefined) {
    if (subValues.length === 0) return [];
    const finding = { kind: added, breaking: false, subPointer: subValues[0].pointer, supPointer: sup.pointer, gap: '' };
    return [changeOfFinding(sub.doc.side, { ...finding, subject: keyword, subValue: shown, supValue: 'none' })];
  }
  if (subValues.some((item) => item.value === supValue.value)) return [];
  if (keyword === 'pattern' && UNIVERSAL_PATTERNS.has(supValue.value)) return [];
  const gap = `strings that ${keyword === 'pattern' ? 'do not match' : 'are not valid as'} ${render(supValue.value)}`;
  if (subValues.length === 0) {
    const finding = { kind: added, breaking: true, subPointer: basePointer(sub), supPointer: supValue.pointer, gap };
    return [changeOfFinding(sub.doc.side, { ...finding, subject: keyword, subValue: 'none', supValue: render(supValue.value) })];
  }
  const code = keyword === 'pattern' ? CHANGE_KINDS.patternChanged.narrowed : CHANGE_KINDS.formatChanged.narrowed;
  const message =
    `${describePointer(supValue.pointer)}: ${keyword} changed from ${shown} to ${render(supValue.value)}; whether one ` +
    `accepts a subset of the other is not decided, so it is ${undecidedConsequence(sub.doc.side)}`;
  return [changeOf(sub.doc.side, { code, breaking: true, subPointer: subValues[0].pointer, supPointer: supValue.pointer, message })];
}

/** Compares the string keywords: minLength, maxLength, pattern, format. */
export function compareStrings(sub: Conjunction, sup: Located): SchemaChange[] {
  return [...lengthChanges(sub, conjunctionAt(sup), sup), ...textualChanges(sub, sup, 'pattern'), ...textualChanges(sub, sup, 'format')];
}
