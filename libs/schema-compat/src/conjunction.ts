import { childPointer } from './json-pointer.js';
import { type SchemaObject, acceptsEverything, isSchemaObject, schemaKeyword, schemaListKeyword, withoutKeywords } from './keywords.js';
import type { Located, SchemaDocument } from './schema-document.js';

/** One conjunct of a schema: the keywords in force at one place of one document. */
export interface Part {
  /** Where the keywords sit, for pointers in reports. */
  readonly pointer: string;
  /** The keywords in force; applicators already distributed over the conjunction are taken out. */
  readonly node: SchemaObject;
  /** Identity of the part for memoising compared pairs. */
  readonly key: string;
  /** Pointer of the untouched node to validate instances against; null for a synthetic part. */
  readonly origin: string | null;
  /** True when `node` is exactly the document's node at `pointer`. */
  readonly pristine: boolean;
  readonly removed: readonly string[];
}

/** A reference that could not be resolved, with the pointer of the `$ref`. */
interface UnresolvedRef {
  readonly pointer: string;
  readonly ref: string;
}

/**
 * The instances valid under every part and under none of `negated`, all in one document. The sub-schema
 * side of a comparison is one of these, so `$ref` siblings, `allOf` and branches of `anyOf` combine.
 */
export interface Conjunction {
  readonly doc: SchemaDocument;
  readonly parts: readonly Part[];
  readonly negated: readonly Located[];
  /** A `false` schema is among the conjuncts: nothing is valid. */
  readonly empty: boolean;
  readonly unresolved: readonly UnresolvedRef[];
  /** `$ref`, `allOf` and `not` have been distributed (see expandConjunction). */
  readonly expanded: boolean;
}

const DISTRIBUTED = ['$ref', 'allOf', 'not'] as const;

/** The part for a document's own node. */
function pristinePart(pointer: string, node: SchemaObject): Part {
  return { pointer, node, key: `@${pointer}`, origin: pointer, pristine: true, removed: [] };
}

/** A part made up by the checker (e.g. "is an object"), validated by itself. */
export function syntheticPart(pointer: string, node: SchemaObject, tag: string): Part {
  return { pointer, node, key: `@${pointer}#${tag}`, origin: null, pristine: false, removed: [] };
}

function strippedPart(part: Part, keywords: readonly string[]): Part {
  const removed = [...new Set([...part.removed, ...keywords])].sort();
  return { ...part, node: withoutKeywords(part.node, keywords), key: `@${part.pointer}-${removed.join(',')}`, pristine: false, removed };
}

/** A conjunction of the given located schemas (an empty list accepts everything). */
export function conjunctionOf(doc: SchemaDocument, located: readonly Located[]): Conjunction {
  const parts: Part[] = [];
  let empty = false;
  for (const { pointer, node } of located) {
    if (node === false) empty = true;
    else if (isSchemaObject(node)) parts.push(pristinePart(pointer, node));
  }
  return { doc, parts, negated: [], empty, unresolved: [], expanded: false };
}

/** The conjunction of one located schema. */
export function conjunctionAt(located: Located): Conjunction {
  return conjunctionOf(located.doc, [located]);
}

/** The conjunction with more parts (and negations) added. */
export function withParts(conjunction: Conjunction, parts: readonly Part[], negated: readonly Located[] = []): Conjunction {
  return { ...conjunction, parts: [...conjunction.parts, ...parts], negated: [...conjunction.negated, ...negated], expanded: false };
}

/**
 * Distributes `$ref` (a reference with siblings is a conjunction in 2020-12), `allOf` and `not`
 * (kept as a negation) over the conjunction, until no part holds any of them.
 */
export function expandConjunction(conjunction: Conjunction): Conjunction {
  if (conjunction.expanded) return conjunction;
  const { doc } = conjunction;
  const queue = [...conjunction.parts];
  const parts: Part[] = [];
  const negated = [...conjunction.negated];
  const unresolved = [...conjunction.unresolved];
  const seen = new Set<string>();
  let empty = conjunction.empty;
  const enqueue = (pointer: string) => {
    const node = doc.nodeAt(pointer) ?? true;
    if (node === false) empty = true;
    else if (node !== true) queue.push(pristinePart(pointer, node));
  };
  for (let part = queue.shift(); part !== undefined; part = queue.shift()) {
    if (seen.has(part.key)) continue;
    seen.add(part.key);
    const { node, pointer } = part;
    if (typeof node.$ref === 'string') {
      const target = doc.resolveRef(node.$ref);
      if (target === null) unresolved.push({ pointer: childPointer(pointer, '$ref'), ref: node.$ref });
      else enqueue(target);
    }
    schemaListKeyword(node, 'allOf').forEach((_item, index) => enqueue(childPointer(pointer, 'allOf', index)));
    if (schemaKeyword(node, 'not') !== undefined) negated.push(doc.locate(childPointer(pointer, 'not')));
    const present = DISTRIBUTED.filter((keyword) => keyword in node);
    const rest = present.length > 0 ? strippedPart(part, present) : part;
    if (!acceptsEverything(rest.node)) parts.push(rest);
  }
  return { doc, parts, negated: dedupeLocated(negated), empty, unresolved, expanded: true };
}

function dedupeLocated(located: readonly Located[]): Located[] {
  const byPointer = new Map(located.map((item) => [item.pointer, item]));
  return [...byPointer.values()];
}

/**
 * Splits the first disjunction of an expanded conjunction (`anyOf`, `oneOf`, `if`/`then`/`else`) into
 * conjunctions whose union contains it: a `oneOf` is widened to an `anyOf`, which is sound for the
 * sub-schema side. Returns null when there is none.
 */
export function splitDisjunction(conjunction: Conjunction): Conjunction[] | null {
  const index = conjunction.parts.findIndex(hasDisjunction);
  if (index === -1) return null;
  const part = conjunction.parts[index];
  const others = conjunction.parts.filter((_item, position) => position !== index);
  const keyword = ['anyOf', 'oneOf'].find((name) => schemaListKeyword(part.node, name).length > 0);
  const branch = (removed: readonly string[], pointers: string[], negated: Located[] = []) => {
    const base = strippedPart(part, removed);
    const located = pointers.map((pointer) => conjunction.doc.locate(pointer));
    const added = conjunctionOf(conjunction.doc, located);
    const parts = acceptsEverything(base.node) ? [...others, ...added.parts] : [...others, base, ...added.parts];
    return {
      ...conjunction,
      parts,
      negated: [...conjunction.negated, ...negated],
      empty: conjunction.empty || added.empty,
      expanded: false,
    };
  };
  if (keyword !== undefined) {
    return schemaListKeyword(part.node, keyword).map((_item, position) =>
      branch([keyword], [childPointer(part.pointer, keyword, position)]),
    );
  }
  const ifPointer = childPointer(part.pointer, 'if');
  const thenPointers = 'then' in part.node ? [ifPointer, childPointer(part.pointer, 'then')] : [ifPointer];
  const elsePointers = 'else' in part.node ? [childPointer(part.pointer, 'else')] : [];
  const conditional = ['if', 'then', 'else'];
  return [branch(conditional, thenPointers), branch(conditional, elsePointers, [conjunction.doc.locate(ifPointer)])];
}

function hasDisjunction(part: Part): boolean {
  const { node } = part;
  if (schemaListKeyword(node, 'anyOf').length > 0 || schemaListKeyword(node, 'oneOf').length > 0) return true;
  return schemaKeyword(node, 'if') !== undefined && ('then' in node || 'else' in node);
}

/** A stable identity of a conjunction, used to memoise compared pairs and to detect recursion. */
export function conjunctionKey(conjunction: Conjunction): string {
  const parts = [...new Set(conjunction.parts.map((part) => part.key))].sort();
  const negated = [...new Set(conjunction.negated.map((item) => item.pointer))].sort();
  return `${conjunction.doc.side}:${conjunction.empty ? '!' : ''}${parts.join('&')}|not:${negated.join('&')}`;
}
