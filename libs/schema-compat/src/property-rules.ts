import { CHANGE_KINDS, PROPERTY_CODES } from './change-kinds.js';
import type { SchemaChange } from './compatibility-report.js';
import type { Comparison } from './comparison.js';
import { type Conjunction, conjunctionOf, expandConjunction } from './conjunction.js';
import { describePointer } from './json-pointer.js';
import { acceptsEverything } from './keywords.js';
import { admitsNothing } from './possible-types.js';
import { additionalSchemas, basePointer, declarationOf, declaredNames, patternEntries, schemasForName } from './property-model.js';
import { breakingOnly, changeOf, changeOfFinding, consequence, otherSide } from './reporting.js';
import type { Located } from './schema-document.js';

/** The verdict for one group of property names: does the sub side's schema fit all of the sup side's? */
interface Fit {
  readonly breaking: boolean;
  readonly reason: string;
  readonly children: SchemaChange[];
}

function fitOf(comparison: Comparison, sub: Conjunction, subSchemas: readonly Located[], supSchemas: readonly Located[]): Fit {
  const subSide = sub.doc.side;
  const subConjunction = expandConjunction(conjunctionOf(sub.doc, subSchemas));
  if (admitsNothing(subConjunction)) return { breaking: false, reason: `the ${subSide} schema does not allow it`, children: [] };
  if (supSchemas.every((schema) => acceptsEverything(schema.node)))
    return { breaking: false, reason: 'any value is accepted', children: [] };
  if (supSchemas.some((schema) => schema.node === false)) {
    return { breaking: true, reason: `the ${otherSide(subSide)} schema does not allow it at all`, children: [] };
  }
  const checked = supSchemas.flatMap((schema) => comparison.check(subConjunction, schema));
  // Against several schemas at once, each holds only part of the constraints: its widenings would be noise.
  const children = supSchemas.length > 1 ? breakingOnly(checked) : checked;
  const reason = subSchemas.length === 0 ? `the ${subSide} schema allows any value for it` : 'see the related changes';
  return { breaking: children.some((change) => change.breaking), reason, children };
}

function declarationCode(sub: Conjunction, supSide: Conjunction, name: string, subDeclares: boolean): string {
  const oldDeclares = sub.doc.side === 'old' ? subDeclares : !subDeclares;
  if (!oldDeclares) return PROPERTY_CODES.added;
  const newSide = sub.doc.side === 'new' ? sub : supSide;
  return schemasForName(newSide, name).some((schema) => schema.node === false) ? PROPERTY_CODES.removedFromClosed : PROPERTY_CODES.removed;
}

function declaredNameChanges(comparison: Comparison, sub: Conjunction, supSide: Conjunction, name: string): SchemaChange[] {
  const subDeclaration = declarationOf(sub, name);
  const supDeclaration = declarationOf(supSide, name);
  const subSchemas = schemasForName(sub, name);
  const supSchemas = schemasForName(supSide, name);
  const fit = fitOf(comparison, sub, subSchemas, supSchemas);
  const bothDeclare = subDeclaration !== undefined && supDeclaration !== undefined;
  if (bothDeclare && (!fit.breaking || fit.children.length > 0)) return fit.children;
  const subPointer = subDeclaration?.pointer ?? subSchemas[0]?.pointer ?? basePointer(sub);
  const supPointer = supDeclaration?.pointer ?? supSchemas[0]?.pointer ?? basePointer(supSide);
  const code = declarationCode(sub, supSide, name, subDeclaration !== undefined);
  const added = code === PROPERTY_CODES.added;
  const what = bothDeclare
    ? added
      ? 'was forbidden and is now allowed'
      : 'is now forbidden'
    : added
      ? 'is newly declared'
      : 'is no longer declared';
  const newPointer = sub.doc.side === 'old' ? supPointer : subPointer;
  const detail = fit.breaking
    ? `${consequence(sub.doc.side, true, `objects with some values of '${name}'`)} (${fit.reason})`
    : consequence(sub.doc.side, false, '');
  const message = `${describePointer(newPointer)}: property '${name}' ${what}; ${detail}.`;
  return [changeOf(sub.doc.side, { code, breaking: fit.breaking, subPointer, supPointer, message }), ...fit.children];
}

function patternCode(sub: Conjunction, subDeclares: boolean): string {
  return (sub.doc.side === 'old') === subDeclares ? PROPERTY_CODES.patternRemoved : PROPERTY_CODES.patternAdded;
}

/**
 * The literal text every name matching an anchored pattern starts with ("^x-" gives "x-"), or undefined
 * when the pattern is not anchored or has an alternation. Two patterns whose prefixes diverge are disjoint.
 */
function literalPrefix(pattern: string): string | undefined {
  if (!pattern.startsWith('^') || pattern.includes('|')) return undefined;
  let prefix = '';
  for (const character of pattern.slice(1)) {
    if (/[A-Za-z0-9_\-:@]/.test(character)) prefix += character;
    else return '?*{'.includes(character) ? prefix.slice(0, -1) : prefix;
  }
  return prefix;
}

function mayOverlap(left: string, right: string): boolean {
  const [a, b] = [literalPrefix(left), literalPrefix(right)];
  if (a === undefined || b === undefined) return true;
  return a.startsWith(b) || b.startsWith(a);
}

function summarised(
  sub: Conjunction,
  code: string,
  subject: string,
  pointers: { subPointer: string; supPointer: string },
  fit: Fit,
): SchemaChange[] {
  const newPointer = sub.doc.side === 'old' ? pointers.supPointer : pointers.subPointer;
  const detail = fit.breaking
    ? `${consequence(sub.doc.side, true, `objects with some values of ${subject}`)} (${fit.reason})`
    : consequence(sub.doc.side, false, '');
  const what = code === PROPERTY_CODES.patternAdded ? 'are newly declared' : 'are no longer declared';
  const message = `${describePointer(newPointer)}: ${subject} ${what}; ${detail}.`;
  return [changeOf(sub.doc.side, { code, breaking: fit.breaking, ...pointers, message }), ...fit.children];
}

/** Names matching a sub-side pattern: they may land under any overlapping sup pattern, or the sup fallback. */
function patternChanges(comparison: Comparison, sub: Conjunction, supSide: Conjunction): SchemaChange[] {
  const supPatterns = patternEntries(supSide);
  const subPatterns = patternEntries(sub);
  const fromSub = subPatterns.flatMap(({ pattern, located }) => {
    const same = supPatterns.filter((entry) => entry.pattern === pattern);
    const overlapping = supPatterns.filter((entry) => entry.pattern !== pattern && mayOverlap(entry.pattern, pattern));
    const targets = [...same, ...overlapping].map((entry) => entry.located);
    if (same.length === 0) targets.push(...additionalSchemas(supSide));
    const fit = fitOf(comparison, sub, [located], targets);
    if (same.length > 0) return fit.children;
    const pointers = { subPointer: located.pointer, supPointer: basePointer(supSide) };
    return summarised(sub, patternCode(sub, true), `properties matching /${pattern}/`, pointers, fit);
  });
  const subFallback = additionalSchemas(sub);
  const fromSup = supPatterns
    .filter(({ pattern }) => !subPatterns.some((entry) => entry.pattern === pattern))
    .flatMap(({ pattern, located }) => {
      const fit = fitOf(comparison, sub, subFallback, [located]);
      const pointers = { subPointer: subFallback[0]?.pointer ?? basePointer(sub), supPointer: located.pointer };
      return summarised(sub, patternCode(sub, false), `properties matching /${pattern}/`, pointers, fit);
    });
  return [...fromSub, ...fromSup];
}

/** Names neither side declares nor matches by pattern: the `additionalProperties` of each side. */
function additionalChanges(comparison: Comparison, sub: Conjunction, supSide: Conjunction): SchemaChange[] {
  const subSchemas = additionalSchemas(sub);
  const supSchemas = additionalSchemas(supSide);
  const subClosed = admitsNothing(conjunctionOf(sub.doc, subSchemas));
  const supClosed = supSchemas.some((schema) => schema.node === false);
  const subOpen = subSchemas.every((schema) => acceptsEverything(schema.node));
  const supOpen = supSchemas.every((schema) => acceptsEverything(schema.node));
  if (subClosed === supClosed && subOpen === supOpen && (subOpen || subClosed)) return [];
  const closing = subClosed || supClosed;
  const describe = (closed: boolean, open: boolean) => (closed ? 'false' : open ? 'any value' : 'a schema');
  const finding = {
    kind: closing ? CHANGE_KINDS.additionalProperties : CHANGE_KINDS.additionalPropertiesSchema,
    subPointer: subSchemas[0]?.pointer ?? basePointer(sub),
    supPointer: supSchemas[0]?.pointer ?? basePointer(supSide),
    subject: 'additionalProperties',
    subValue: describe(subClosed, subOpen),
    supValue: describe(supClosed, supOpen),
  };
  const fit = fitOf(comparison, sub, subSchemas, supSchemas);
  if (!subClosed && !subOpen && !supClosed && !supOpen) return fit.children;
  const gap = supClosed ? 'objects with undeclared properties' : 'undeclared properties with values';
  return [changeOfFinding(sub.doc.side, { ...finding, breaking: fit.breaking, gap }), ...fit.children];
}

/**
 * Compares the content model of objects: each declared property, `patternProperties` and
 * `additionalProperties`, for open, closed and partially open schemas.
 */
export function compareProperties(comparison: Comparison, sub: Conjunction, supSide: Conjunction): SchemaChange[] {
  const names = [...new Set([...declaredNames(sub), ...declaredNames(supSide)])];
  return [
    ...names.flatMap((name) => declaredNameChanges(comparison, sub, supSide, name)),
    ...patternChanges(comparison, sub, supSide),
    ...additionalChanges(comparison, sub, supSide),
  ];
}
