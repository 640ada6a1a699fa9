import { CHANGE_KINDS, type ChangeKind } from './change-kinds.js';
import type { SchemaChange } from './compatibility-report.js';
import type { Comparison } from './comparison.js';
import { type Conjunction, conjunctionAt, expandConjunction, syntheticPart, withParts } from './conjunction.js';
import { disjoint } from './disjointness.js';
import { childPointer, describePointer } from './json-pointer.js';
import { type JsonType, describeTypes, intersectTypes } from './json-types.js';
import { type SchemaObject, schemaKeyword, schemaListKeyword } from './keywords.js';
import { possibleTypes } from './possible-types.js';
import { basePointer } from './property-model.js';
import { breakingOnly, changeOf, changeOfFinding, undecidedConsequence } from './reporting.js';
import type { Located } from './schema-document.js';

type SupNode = Located & { node: SchemaObject };

/** One conjunction per instance type, so each type can be matched to a different branch. */
function byType(sub: Conjunction, types: readonly JsonType[]): Conjunction[] {
  if (types.length <= 1) return [sub];
  return types.map((type) => withParts(sub, [syntheticPart(basePointer(sub), { type }, `type:${type}`)]));
}

function branchesOf(sup: SupNode, keyword: 'anyOf' | 'oneOf'): Located[] {
  return schemaListKeyword(sup.node, keyword).map((_item, index) => sup.doc.locate(childPointer(sup.pointer, keyword, index)));
}

function undecidable(sub: Conjunction, kind: ChangeKind, supPointer: string, reason: string): SchemaChange {
  const message = `${describePointer(supPointer)}: ${reason}; ${undecidedConsequence(sub.doc.side)}.`;
  return changeOf(sub.doc.side, { code: kind.narrowed, breaking: true, subPointer: basePointer(sub), supPointer, message });
}

/**
 * When no single branch accepts a piece of the sub side: with exactly one branch of the right type the
 * differences to it are exact; with none the type is lost; with several the union is not analysed.
 */
function uncovered(
  comparison: Comparison,
  piece: Conjunction,
  branches: readonly Located[],
  sup: SupNode,
  kind: ChangeKind,
): SchemaChange[] {
  const types = possibleTypes(expandConjunction(piece));
  const typed = branches.filter((branch) => intersectTypes(possibleTypes(expandConjunction(conjunctionAt(branch))), types).length > 0);
  const candidates = typed.filter((branch) => !disjoint(comparison, piece, conjunctionAt(branch)));
  if (candidates.length === 1) return breakingOnly(comparison.check(piece, candidates[0]));
  if (typed.length === 0) {
    const finding = {
      kind: CHANGE_KINDS.type,
      breaking: true,
      subPointer: basePointer(piece),
      supPointer: sup.pointer,
      subject: 'the types accepted by the branches',
      subValue: describeTypes(types),
      supValue: 'branches of other types',
      gap: `${describeTypes(types)} values`,
    };
    return [changeOfFinding(piece.doc.side, finding)];
  }
  const reason =
    candidates.length === 0
      ? `no branch accepts the ${describeTypes(types)} values of the ${piece.doc.side} schema`
      : `no single branch accepts every ${describeTypes(types)} value of the ${piece.doc.side} schema, and coverage by several branches together is not decided`;
  return [undecidable(piece, kind, sup.pointer, reason)];
}

/** anyOf on the sup side: each type of the sub side must fit in some branch. */
function anyOfChanges(comparison: Comparison, sub: Conjunction, types: readonly JsonType[], sup: SupNode): SchemaChange[] {
  const branches = branchesOf(sup, 'anyOf');
  if (branches.length === 0) return [];
  return byType(sub, types).flatMap((piece) =>
    branches.some((branch) => comparison.holds(piece, branch))
      ? []
      : uncovered(comparison, piece, branches, sup, CHANGE_KINDS.undecidableAnyOf),
  );
}

/** oneOf on the sup side: each piece must fit one branch and be provably disjoint from all the others. */
function oneOfChanges(comparison: Comparison, sub: Conjunction, types: readonly JsonType[], sup: SupNode): SchemaChange[] {
  const branches = branchesOf(sup, 'oneOf');
  if (branches.length === 0) return [];
  return byType(sub, types).flatMap((piece) => {
    const index = branches.findIndex((branch) => comparison.holds(piece, branch));
    if (index === -1) return uncovered(comparison, piece, branches, sup, CHANGE_KINDS.undecidableOneOf);
    const chosen = conjunctionAt(branches[index]);
    const overlapping = branches.filter(
      (branch, position) =>
        position !== index && !disjoint(comparison, piece, conjunctionAt(branch)) && !disjoint(comparison, chosen, conjunctionAt(branch)),
    );
    if (overlapping.length === 0) return [];
    const others = overlapping.map((branch) => describePointer(branch.pointer)).join(', ');
    const reason = `values of the ${piece.doc.side} schema match ${describePointer(branches[index].pointer)}, but may also match ${others}, which oneOf forbids; exclusivity is not proven`;
    return [undecidable(piece, CHANGE_KINDS.undecidableOneOf, sup.pointer, reason)];
  });
}

/** not on the sup side: the sub side must be provably disjoint from the negated schema. */
function notChanges(comparison: Comparison, sub: Conjunction, sup: SupNode): SchemaChange[] {
  if (schemaKeyword(sup.node, 'not') === undefined) return [];
  const negated = sup.doc.locate(childPointer(sup.pointer, 'not'));
  const negatedSide = conjunctionAt(negated);
  if (sub.negated.some((own) => comparison.holds(negatedSide, own))) return [];
  if (disjoint(comparison, sub, negatedSide)) return [];
  const reason = `cannot prove that no value of the ${sub.doc.side} schema matches the schema under not`;
  return [undecidable(sub, CHANGE_KINDS.undecidableNot, negated.pointer, reason)];
}

/** if/then/else on the sup side: decided by which branch the sub side falls in, else both must hold. */
function conditionalChanges(comparison: Comparison, sub: Conjunction, sup: SupNode): SchemaChange[] {
  if (schemaKeyword(sup.node, 'if') === undefined) return [];
  const at = (keyword: string) =>
    schemaKeyword(sup.node, keyword) === undefined ? undefined : sup.doc.locate(childPointer(sup.pointer, keyword));
  const [condition, then, otherwise] = [at('if'), at('then'), at('else')];
  if (condition === undefined || (then === undefined && otherwise === undefined)) return [];
  const checkBranch = (branch: Located | undefined) => (branch === undefined ? [] : breakingOnly(comparison.check(sub, branch)));
  if (comparison.holds(sub, condition)) return checkBranch(then);
  if (disjoint(comparison, sub, conjunctionAt(condition))) return checkBranch(otherwise);
  const children = [...checkBranch(then), ...checkBranch(otherwise)];
  if (!children.some((change) => change.breaking)) return children;
  const hadConditional = sub.parts.some((part) => part.removed.includes('if'));
  const kind = hadConditional ? CHANGE_KINDS.undecidableConditional : CHANGE_KINDS.conditional;
  const finding = {
    kind,
    breaking: true,
    subPointer: basePointer(sub),
    supPointer: condition.pointer,
    subject: 'the if/then/else condition',
    subValue: hadConditional ? 'a different condition' : 'none',
    supValue: 'a condition',
    gap: 'values that fail the then/else branch that applies to them',
  };
  return [changeOfFinding(sub.doc.side, finding), ...children];
}

/** Compares the sup side's applicators that are not conjunctions: anyOf, oneOf, not, if/then/else. */
export function compareCombinators(comparison: Comparison, sub: Conjunction, types: readonly JsonType[], sup: SupNode): SchemaChange[] {
  return [
    ...anyOfChanges(comparison, sub, types, sup),
    ...oneOfChanges(comparison, sub, types, sup),
    ...notChanges(comparison, sub, sup),
    ...conditionalChanges(comparison, sub, sup),
  ];
}
