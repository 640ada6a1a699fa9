import { CHANGE_KINDS } from './change-kinds.js';
import type { SchemaChange } from './compatibility-report.js';
import { type Conjunction, conjunctionKey } from './conjunction.js';
import { identicalSchemas } from './identity.js';
import type { InstanceOracle } from './instance-oracle.js';
import { basePointer } from './property-model.js';
import { changeOf } from './reporting.js';
import type { Located } from './schema-document.js';

function tooComplex(sub: Conjunction, sup: Located): SchemaChange {
  const message = `the schemas are too large or too entangled to compare within ${MAX_DECIDED_PAIRS} steps; treated as breaking.`;
  const code = CHANGE_KINDS.undecidableComplexity.narrowed;
  return changeOf(sub.doc.side, { code, breaking: true, subPointer: basePointer(sub), supPointer: sup.pointer, message });
}

/** Beyond this many decided pairs a check gives up (as breaking) rather than run on. */
const MAX_DECIDED_PAIRS = 20_000;

/** Decides one pair; called through Comparison.check, which memoises it. */
export type PairCheck = (comparison: Comparison, sub: Conjunction, sup: Located) => SchemaChange[];

/**
 * The state of one compatibility check: memoised results of compared pairs and the pairs being compared.
 * A pair met again while it is still being compared is assumed to hold (coinduction), which is what makes
 * recursive schemas terminate; a real difference is reported where the pair was first entered. A result
 * that relied on such an assumption about another pair is not memoised unless it is breaking anyway
 * (assumptions only make results more optimistic), since that pair may still turn out not to hold.
 */
export class Comparison {
  private readonly results = new Map<string, SchemaChange[]>();
  private readonly frames: { key: string; assumed: Set<string> }[] = [];
  private readonly identical = new Map<string, boolean>();
  private decided = 0;

  constructor(
    readonly oracle: InstanceOracle,
    private readonly decide: PairCheck,
  ) {}

  /** The changes found checking that every instance valid under `sub` is valid under `sup`. */
  check(sub: Conjunction, sup: Located): SchemaChange[] {
    const key = `${conjunctionKey(sub)} <= ${sup.doc.side}:${sup.pointer}`;
    const known = this.results.get(key);
    if (known !== undefined) return known;
    if (this.frames.some((frame) => frame.key === key)) {
      this.frames[this.frames.length - 1].assumed.add(key);
      return [];
    }
    this.decided += 1;
    if (this.decided > MAX_DECIDED_PAIRS) return [tooComplex(sub, sup)];
    const frame = { key, assumed: new Set<string>() };
    this.frames.push(frame);
    try {
      const changes = this.decide(this, sub, sup);
      frame.assumed.delete(key);
      if (frame.assumed.size === 0 || changes.some((change) => change.breaking)) this.results.set(key, changes);
      return changes;
    } finally {
      this.frames.pop();
      const parent = this.frames[this.frames.length - 1];
      for (const assumed of frame.assumed) parent?.assumed.add(assumed);
    }
  }

  /** True when the check finds no breaking change. */
  holds(sub: Conjunction, sup: Located): boolean {
    return !this.check(sub, sup).some((change) => change.breaking);
  }

  /** True when two located nodes are identical, references included (cached). */
  areIdentical(left: Located, right: Located): boolean {
    const key = `${left.doc.side}:${left.pointer}=${right.doc.side}:${right.pointer}`;
    let result = this.identical.get(key);
    if (result === undefined) {
      result = identicalSchemas(left.doc, left.node, right.doc, right.node);
      this.identical.set(key, result);
    }
    return result;
  }
}
