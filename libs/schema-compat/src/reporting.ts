import type { ChangeKind } from './change-kinds.js';
import type { SchemaChange } from './compatibility-report.js';
import { describePointer } from './json-pointer.js';
import type { SchemaSide } from './schema-document.js';

/**
 * A difference found while checking "every instance of the sub side is valid under the sup side".
 * Which of old and new is the sub side depends on the direction; reports always name old and new.
 */
export interface Finding {
  readonly kind: ChangeKind;
  readonly breaking: boolean;
  readonly subPointer: string;
  readonly supPointer: string;
  /** The constraint that differs, as a noun phrase: "maxLength", "the allowed types". */
  readonly subject: string;
  readonly subValue: string;
  readonly supValue: string;
  /** What the sub side accepts that the sup side rejects (read when breaking). */
  readonly gap: string;
}

/** A change whose message the rule writes itself. */
export interface ChangeSpec {
  readonly code: string;
  readonly breaking: boolean;
  readonly subPointer: string;
  readonly supPointer: string;
  readonly message: string;
}

/** The other side. */
export function otherSide(side: SchemaSide): SchemaSide {
  return side === 'old' ? 'new' : 'old';
}

/**
 * The code of a change: a breaking difference makes the sup side narrower than the sub side, so it is a
 * narrowing when the sup side is the new schema (backward) and a widening when it is the old one.
 */
export function codeOf(kind: ChangeKind, breaking: boolean, subSide: SchemaSide): string {
  return breaking === (subSide === 'old') ? kind.narrowed : kind.widened;
}

/** A change located in both schemas from a rule's own message. */
export function changeOf(subSide: SchemaSide, spec: ChangeSpec): SchemaChange {
  const [oldPointer, newPointer] = subSide === 'old' ? [spec.subPointer, spec.supPointer] : [spec.supPointer, spec.subPointer];
  return { code: spec.code, breaking: spec.breaking, old_pointer: oldPointer, new_pointer: newPointer, message: spec.message };
}

/** The sentence that ends a message: what instances are affected, or that none is. */
export function consequence(subSide: SchemaSide, breaking: boolean, gap: string): string {
  const supSide = otherSide(subSide);
  if (breaking) return `the ${subSide} schema accepts ${gap}, which the ${supSide} schema rejects`;
  return `everything the ${subSide} schema accepts here is still accepted by the ${supSide} schema`;
}

/** The breaking changes only: a comparison against part of a schema would report its widenings wrongly. */
export function breakingOnly(changes: readonly SchemaChange[]): SchemaChange[] {
  return changes.filter((change) => change.breaking);
}

/** How a message ends when a question was not decided. */
export function undecidedConsequence(subSide: SchemaSide): string {
  return `treated as breaking, since the ${otherSide(subSide)} schema may reject values the ${subSide} schema accepts`;
}

/** A change from a finding, with a message saying what changed from old to new and what it means. */
export function changeOfFinding(subSide: SchemaSide, finding: Finding): SchemaChange {
  const [oldValue, newValue] = subSide === 'old' ? [finding.subValue, finding.supValue] : [finding.supValue, finding.subValue];
  const newPointer = subSide === 'old' ? finding.supPointer : finding.subPointer;
  const message = `${describePointer(newPointer)}: ${finding.subject} changed from ${oldValue} to ${newValue}; ${consequence(subSide, finding.breaking, finding.gap)}.`;
  return changeOf(subSide, { ...finding, code: codeOf(finding.kind, finding.breaking, subSide), message });
}
