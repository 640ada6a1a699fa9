import { compareArrays } from './array-rules.js';
import { CHANGE_KINDS } from './change-kinds.js';
import { compareCombinators } from './combinator-rules.js';
import type { SchemaChange } from './compatibility-report.js';
import { Comparison } from './comparison.js';
import { type Conjunction, expandConjunction, splitDisjunction } from './conjunction.js';
import { checkFiniteSubschema } from './finite-check.js';
import { InstanceOracle } from './instance-oracle.js';
import { childPointer, describePointer } from './json-pointer.js';
import { type JsonType, admitsType } from './json-types.js';
import {
  type SchemaObject,
  UNSUPPORTED_KEYWORDS,
  acceptsEverything,
  isSchemaObject,
  schemaListKeyword,
  withoutKeywords,
} from './keywords.js';
import { compareNumbers } from './number-rules.js';
import { compareObjects } from './object-rules.js';
import { possibleTypes } from './possible-types.js';
import { basePointer } from './property-model.js';
import { breakingOnly, changeOf, changeOfFinding, undecidedConsequence } from './reporting.js';
import type { Located, SchemaDocument } from './schema-document.js';
import { compareStrings } from './string-rules.js';
import { compareListedValues, compareTypes } from './type-rules.js';

type SupNode = Located & { node: SchemaObject };

const COMBINING_KEYWORDS = ['$ref', 'allOf', 'anyOf', 'oneOf', 'if'];

/** A comparison between two documents, deciding pairs with isSubschema. */
export function createComparison(documents: readonly SchemaDocument[]): Comparison {
  return new Comparison(new InstanceOracle(documents), isSubschema);
}

function unresolvedChanges(
  sub: Conjunction,
  pointers: { ref: string; pointer: string; side: 'sub' | 'sup' }[],
  supPointer: string,
): SchemaChange[] {
  return pointers.map(({ ref, pointer, side }) => {
    const [subPointer, atSup] = side === 'sub' ? [pointer, supPointer] : [basePointer(sub), pointer];
    const message = `${describePointer(pointer)}: the reference ${JSON.stringify(ref)} cannot be resolved (only local references are), so compatibility is not decided; treated as breaking.`;
    return changeOf(sub.doc.side, { code: CHANGE_KINDS.refUnresolvable.narrowed, breaking: true, subPointer, supPointer: atSup, message });
  });
}

/**
 * Decides whether every instance valid under `sub` is valid under `sup`, listing the reasons it is not
 * (breaking changes) and the widenings on the way (non-breaking). Sound rather than complete: where the
 * answer is not decided, a breaking change with an UNDECIDABLE_* code is reported. Called through
 * Comparison.check, which memoises pairs and assumes a pair already being compared holds.
 */
function isSubschema(comparison: Comparison, sub: Conjunction, sup: Located): SchemaChange[] {
  if (acceptsEverything(sup.node)) return [];
  if (sub.parts.some((part) => part.pristine && comparison.areIdentical(sub.doc.locate(part.pointer), sup))) return [];
  const expanded = expandConjunction(sub);
  const refs = unresolvedChanges(
    expanded,
    expanded.unresolved.map((item) => ({ ...item, side: 'sub' as const })),
    sup.pointer,
  );
  const types = possibleTypes(expanded);
  if (types.length === 0) return refs;
  if (expanded.parts.some((part) => part.pristine && comparison.areIdentical(expanded.doc.locate(part.pointer), sup))) return refs;
  const finite = refs.length === 0 ? checkFiniteSubschema(comparison, expanded, types, sup) : undefined;
  if (finite !== undefined) return finite;
  const branches = splitDisjunction(expanded);
  if (branches !== null) return [...refs, ...branches.flatMap((branch) => breakingOnly(comparison.check(branch, sup)))];
  return [...refs, ...compareWithSup(comparison, expanded, types, sup)];
}

function compareWithSup(comparison: Comparison, sub: Conjunction, types: readonly JsonType[], sup: Located): SchemaChange[] {
  if (!isSchemaObject(sup.node)) return sup.node ? [] : [falseSchemaChange(sub, sup)];
  const node = sup.node;
  const changes: SchemaChange[] = [];
  // Each piece of a node that combines schemas holds only part of the constraints: its widenings would be noise.
  const combines = COMBINING_KEYWORDS.some((keyword) => keyword in node);
  const onlyRef = acceptsEverything(withoutKeywords(node, ['$ref']));
  if (typeof node.$ref === 'string') {
    const target = sup.doc.resolveRef(node.$ref);
    const pointer = childPointer(sup.pointer, '$ref');
    if (target === null) changes.push(...unresolvedChanges(sub, [{ ref: node.$ref, pointer, side: 'sup' }], sup.pointer));
    else
      changes.push(
        ...(onlyRef ? comparison.check(sub, sup.doc.locate(target)) : breakingOnly(comparison.check(sub, sup.doc.locate(target)))),
      );
  }
  schemaListKeyword(node, 'allOf').forEach((_item, index) =>
    changes.push(...breakingOnly(comparison.check(sub, sup.doc.locate(childPointer(sup.pointer, 'allOf', index))))),
  );
  const plain = { ...sup, node };
  const keywordChanges = compareKeywords(comparison, sub, types, plain);
  changes.push(...compareCombinators(comparison, sub, types, plain), ...(combines ? breakingOnly(keywordChanges) : keywordChanges));
  return changes;
}

function falseSchemaChange(sub: Conjunction, sup: Located): SchemaChange {
  const finding = {
    kind: CHANGE_KINDS.falseSchema,
    breaking: true,
    subPointer: basePointer(sub),
    supPointer: sup.pointer,
    subject: 'the schema',
    subValue: 'a satisfiable schema',
    supValue: 'false',
    gap: 'values here',
  };
  return changeOfFinding(sub.doc.side, finding);
}

function unsupportedChanges(sub: Conjunction, sup: SupNode): SchemaChange[] {
  return UNSUPPORTED_KEYWORDS.filter((keyword) => keyword in sup.node && sup.node[keyword] !== true).map((keyword) => {
    const supPointer = childPointer(sup.pointer, keyword);
    const message = `${describePointer(supPointer)}: ${keyword} is not analysed by this checker, so compatibility is not decided; ${undecidedConsequence(sub.doc.side)}.`;
    return changeOf(sub.doc.side, {
      code: CHANGE_KINDS.undecidableKeyword.narrowed,
      breaking: true,
      subPointer: basePointer(sub),
      supPointer,
      message,
    });
  });
}

/** The assertion keywords of the sup node, per instance type the two sides share. */
function compareKeywords(comparison: Comparison, sub: Conjunction, types: readonly JsonType[], sup: SupNode): SchemaChange[] {
  const { changes, shared } = compareTypes(sub, types, sup);
  if (shared.length === 0) return changes;
  changes.push(...compareListedValues(sub, sup), ...unsupportedChanges(sub, sup));
  if (admitsType(shared, 'string')) changes.push(...compareStrings(sub, sup));
  if (admitsType(shared, 'integer')) changes.push(...compareNumbers(sub, sup, !shared.includes('number')));
  if (admitsType(shared, 'object')) changes.push(...compareObjects(comparison, sub, sup));
  if (admitsType(shared, 'array')) changes.push(...compareArrays(comparison, sub, sup));
  return changes;
}
