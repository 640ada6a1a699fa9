import { CHANGE_KINDS, type ChangeKind, KIND_OF_FAILED_KEYWORD } from './change-kinds.js';
import type { SchemaChange } from './compatibility-report.js';
import type { Comparison } from './comparison.js';
import type { Conjunction } from './conjunction.js';
import { finiteCandidates } from './finite-values.js';
import type { ErrorObject } from 'ajv/dist/2020.js';
import { jsonEqual, renderValue } from './json-equal.js';
import { childPointer, describePointer, valueAtPointer } from './json-pointer.js';
import type { JsonType } from './json-types.js';
import { isSchemaObject } from './keywords.js';
import { basePointer } from './property-model.js';
import { changeOf, codeOf, consequence, otherSide } from './reporting.js';
import type { Located } from './schema-document.js';

/** At most this many rejected values are reported for one pair. */
const MAX_REPORTED_VALUES = 10;

/**
 * Decides a pair exactly when the sub side has evidently finitely many instances: each one is validated
 * against the sup side. Undefined when the sub side is not evidently finite or a node cannot be compiled.
 */
export function checkFiniteSubschema(
  comparison: Comparison,
  sub: Conjunction,
  types: readonly JsonType[],
  sup: Located,
): SchemaChange[] | undefined {
  const candidates = finiteCandidates(sub, types);
  if (candidates === undefined) return undefined;
  const instances: unknown[] = [];
  for (const candidate of candidates) {
    const accepted = comparison.oracle.acceptsInConjunction(sub, candidate);
    if (accepted === undefined) return undefined;
    if (accepted) instances.push(candidate);
  }
  const changes: SchemaChange[] = [];
  for (const instance of instances) {
    const verdict = comparison.oracle.validateAt(sup.doc, sup.pointer, instance);
    if (verdict === undefined) return undefined;
    if (!verdict.valid && changes.length < MAX_REPORTED_VALUES) changes.push(rejectedValue(sub, sup, instance, verdict.error));
  }
  return [...changes, ...addedValues(sub, sup, instances)];
}

function listedValues(sub: Conjunction): { pointer: string; keyword: 'const' | 'enum' } | undefined {
  for (const part of sub.parts) if ('const' in part.node) return { pointer: childPointer(part.pointer, 'const'), keyword: 'const' };
  for (const part of sub.parts) if (Array.isArray(part.node.enum)) return { pointer: childPointer(part.pointer, 'enum'), keyword: 'enum' };
  return undefined;
}

function kindOfRejection(sub: Conjunction, error: ErrorObject | undefined): ChangeKind {
  const kind = KIND_OF_FAILED_KEYWORD[error?.keyword ?? ''] ?? CHANGE_KINDS.value;
  const listed = listedValues(sub);
  if (kind === CHANGE_KINDS.enumValue && listed === undefined) return CHANGE_KINDS.enum;
  if (kind === CHANGE_KINDS.constValue && listed?.keyword !== 'const') return CHANGE_KINDS.const;
  return kind;
}

function failingPointer(sup: Located, error: ErrorObject | undefined): string {
  const path = error?.schemaPath ?? '';
  const fragment = path.slice(path.indexOf('#') + 1);
  return fragment.startsWith('/') && valueAtPointer(sup.doc.root, fragment) !== undefined ? fragment : sup.pointer;
}

function rejectedValue(sub: Conjunction, sup: Located, instance: unknown, error: ErrorObject | undefined): SchemaChange {
  const subSide = sub.doc.side;
  const supPointer = failingPointer(sup, error);
  const where = error?.instancePath ? ` at ${error.instancePath}` : '';
  const reason = error?.message ? ` (${error.message}${where})` : '';
  return changeOf(subSide, {
    code: codeOf(kindOfRejection(sub, error), true, subSide),
    breaking: true,
    subPointer: listedValues(sub)?.pointer ?? basePointer(sub),
    supPointer,
    message: `${describePointer(supPointer)}: ${consequence(subSide, true, `the value ${renderValue(instance)}`)}${reason}.`,
  });
}

/** Notes the values a sup-side `enum` lists beyond the sub side's: a widening, never breaking. */
function addedValues(sub: Conjunction, sup: Located, instances: readonly unknown[]): SchemaChange[] {
  const listed = listedValues(sub);
  if (listed === undefined || !isSchemaObject(sup.node) || !Array.isArray(sup.node.enum)) return [];
  const extra = sup.node.enum.filter((value) => !instances.some((instance) => jsonEqual(instance, value)));
  if (extra.length === 0) return [];
  const subSide = sub.doc.side;
  const supPointer = childPointer(sup.pointer, 'enum');
  const values = extra.slice(0, MAX_REPORTED_VALUES).map(renderValue).join(', ');
  return [
    changeOf(subSide, {
      code: codeOf(CHANGE_KINDS.enumValue, false, subSide),
      breaking: false,
      subPointer: listed.pointer,
      supPointer,
      message: `${describePointer(supPointer)}: the ${otherSide(subSide)} schema also lists ${values}; ${consequence(subSide, false, '')}.`,
    }),
  ];
}
