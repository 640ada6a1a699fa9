import { CHANGE_KINDS } from './change-kinds.js';
import type { SchemaChange } from './compatibility-report.js';
import type { Conjunction } from './conjunction.js';
import { renderValue } from './json-equal.js';
import { childPointer } from './json-pointer.js';
import { ALL_TYPES, type JsonType, admitsType, declaredTypes, describeTypes, intersectTypes } from './json-types.js';
import { type SchemaObject } from './keywords.js';
import { basePointer } from './property-model.js';
import { changeOfFinding } from './reporting.js';
import type { Located } from './schema-document.js';

/** The outcome of comparing types: the changes, and the instance types both sides accept. */
export interface TypeComparison {
  readonly changes: SchemaChange[];
  readonly shared: JsonType[];
}

function typePointer(sub: Conjunction): string {
  const part = sub.parts.find((candidate) => declaredTypes(candidate.node) !== undefined);
  return part ? childPointer(part.pointer, 'type') : basePointer(sub);
}

function lostTypes(subTypes: readonly JsonType[], supTypes: readonly JsonType[]): string[] {
  return subTypes.flatMap((type) => {
    if (admitsType(supTypes, type)) return [];
    return type === 'number' && supTypes.includes('integer') ? ['non-integer number'] : [type];
  });
}

/**
 * Compares `type`: every instance type the sub side can have must be accepted by the sup side
 * (`integer` is a subset of `number`). Types the sup side adds are a widening.
 */
export function compareTypes(sub: Conjunction, subTypes: readonly JsonType[], sup: Located & { node: SchemaObject }): TypeComparison {
  const supDeclared = declaredTypes(sup.node);
  const supTypes = supDeclared ?? ALL_TYPES;
  const subDeclares = sub.parts.some((part) => declaredTypes(part.node) !== undefined);
  const shared = intersectTypes(subTypes, supTypes);
  const lost = lostTypes(subTypes, supTypes);
  const gained = supTypes.filter((type) => !admitsType(subTypes, type) && !(type === 'integer' && subTypes.includes('number')));
  const finding = {
    kind: CHANGE_KINDS.type,
    subPointer: typePointer(sub),
    supPointer: supDeclared === undefined ? sup.pointer : childPointer(sup.pointer, 'type'),
    subject: 'the accepted types',
    subValue: subDeclares ? describeTypes(subTypes) : 'any type',
    supValue: supDeclared === undefined ? 'any type' : describeTypes(supDeclared),
  };
  const changes: SchemaChange[] = [];
  if (lost.length > 0) changes.push(changeOfFinding(sub.doc.side, { ...finding, breaking: true, gap: `${lost.join(' and ')} values` }));
  else if (gained.length > 0 && subDeclares) changes.push(changeOfFinding(sub.doc.side, { ...finding, breaking: false, gap: '' }));
  return { changes, shared };
}

/**
 * A sup side restricted to listed values (`enum`/`const`) cannot contain a sub side that is not evidently
 * finite (finite sub sides are decided value by value before this rule runs).
 */
export function compareListedValues(sub: Conjunction, sup: Located & { node: SchemaObject }): SchemaChange[] {
  const keyword = 'const' in sup.node ? 'const' : Array.isArray(sup.node.enum) ? 'enum' : undefined;
  if (keyword === undefined) return [];
  const finding = {
    kind: keyword === 'const' ? CHANGE_KINDS.const : CHANGE_KINDS.enum,
    breaking: true,
    subPointer: basePointer(sub),
    supPointer: childPointer(sup.pointer, keyword),
    subject: 'the accepted values',
    subValue: 'an open set of values',
    supValue: `${keyword} ${renderValue(sup.node[keyword])}`,
    gap: 'values outside that list',
  };
  return [changeOfFinding(sub.doc.side, finding)];
}
