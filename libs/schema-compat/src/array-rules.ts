import { CHANGE_KINDS } from './change-kinds.js';
import type { SchemaChange } from './compatibility-report.js';
import type { Comparison } from './comparison.js';
import { type Conjunction, conjunctionAt, conjunctionOf } from './conjunction.js';
import { type Limit, bindingMaximum, bindingMinimum } from './constraints.js';
import { childPointer } from './json-pointer.js';
import { acceptsEverything, numberKeyword, schemaKeyword, schemaListKeyword } from './keywords.js';
import { admitsNothing } from './possible-types.js';
import { basePointer } from './property-model.js';
import { changeOfFinding } from './reporting.js';
import type { Located } from './schema-document.js';

/** The schemas item `index` must satisfy: per part, its `prefixItems` entry or else its `items`. */
function schemasAtIndex(conjunction: Conjunction, index: number): Located[] {
  return conjunction.parts.flatMap((part) => {
    const prefix = schemaListKeyword(part.node, 'prefixItems');
    if (index < prefix.length) return [conjunction.doc.locate(childPointer(part.pointer, 'prefixItems', index))];
    return schemaKeyword(part.node, 'items') === undefined ? [] : [conjunction.doc.locate(childPointer(part.pointer, 'items'))];
  });
}

function longestPrefix(conjunction: Conjunction): number {
  return Math.max(0, ...conjunction.parts.map((part) => schemaListKeyword(part.node, 'prefixItems').length));
}

/** The most items a sub-side array can have: maxItems, or the length of a closed tuple. */
function effectiveMaxItems(sub: Conjunction): Limit | undefined {
  const declared = bindingMaximum(sub, 'maxItems');
  const closed = sub.parts
    .filter((part) => part.node.items === false)
    .map((part) => ({ value: schemaListKeyword(part.node, 'prefixItems').length, pointer: childPointer(part.pointer, 'items') }));
  return [declared, ...closed].reduce<Limit | undefined>(
    (best, limit) => (limit && (!best || limit.value < best.value) ? limit : best),
    undefined,
  );
}

function containsMinimum(conjunction: Conjunction): number {
  return Math.max(
    0,
    ...conjunction.parts
      .filter((part) => schemaKeyword(part.node, 'contains') !== undefined)
      .map((part) => numberKeyword(part.node, 'minContains') ?? 1),
  );
}

function effectiveMinItems(sub: Conjunction): number {
  return Math.max(bindingMinimum(sub, 'minItems')?.value ?? 0, containsMinimum(sub));
}

function itemChanges(comparison: Comparison, sub: Conjunction, supSide: Conjunction): SchemaChange[] {
  const changes: SchemaChange[] = [];
  const length = Math.max(longestPrefix(sub), longestPrefix(supSide));
  const maxItems = effectiveMaxItems(sub)?.value ?? Infinity;
  for (let index = 0; index <= length && index < maxItems; index += 1) {
    const subSchemas = schemasAtIndex(sub, index);
    const subItems = conjunctionOf(sub.doc, subSchemas);
    if (admitsNothing(subItems)) break;
    const [supSchema] = schemasAtIndex(supSide, index);
    const which = index < length ? `item ${index}` : `items from index ${length}`;
    const finding = {
      subPointer: subSchemas[0]?.pointer ?? basePointer(sub),
      supPointer: supSchema?.pointer ?? basePointer(supSide),
      subject: `the schema of ${which}`,
      subValue: subSchemas.length === 0 ? 'any value' : 'a schema',
      supValue: supSchema === undefined ? 'any value' : supSchema.node === false ? 'false' : 'a schema',
    };
    if (supSchema === undefined || acceptsEverything(supSchema.node)) {
      if (!subSchemas.every((schema) => acceptsEverything(schema.node))) {
        changes.push(changeOfFinding(sub.doc.side, { ...finding, kind: CHANGE_KINDS.items, breaking: false, gap: '' }));
      }
    } else if (supSchema.node === false) {
      changes.push(
        changeOfFinding(sub.doc.side, {
          ...finding,
          kind: CHANGE_KINDS.itemsClosed,
          breaking: true,
          gap: `arrays with more than ${index} items`,
        }),
      );
      break;
    } else {
      const children = comparison.check(subItems, supSchema);
      if (subSchemas.length === 0 && children.some((change) => change.breaking)) {
        changes.push(
          changeOfFinding(sub.doc.side, {
            ...finding,
            kind: CHANGE_KINDS.items,
            breaking: true,
            gap: `arrays whose ${which} can be any value`,
          }),
        );
      }
      changes.push(...children);
    }
  }
  return changes;
}

function countChanges(sub: Conjunction, supSide: Conjunction): SchemaChange[] {
  const changes: SchemaChange[] = [];
  const subMin = effectiveMinItems(sub);
  const supMin = bindingMinimum(supSide, 'minItems');
  const ownMin = bindingMinimum(sub, 'minItems');
  if ((supMin?.value ?? 0) !== subMin && (supMin !== undefined || ownMin !== undefined)) {
    const finding = {
      kind: CHANGE_KINDS.minItems,
      breaking: (supMin?.value ?? 0) > subMin,
      subPointer: ownMin?.pointer ?? basePointer(sub),
      supPointer: supMin?.pointer ?? basePointer(supSide),
      subject: 'minItems',
      subValue: String(subMin),
      supValue: String(supMin?.value ?? 0),
      gap: `arrays with fewer than ${supMin?.value} items`,
    };
    changes.push(changeOfFinding(sub.doc.side, finding));
  }
  const subMax = effectiveMaxItems(sub);
  const supMax = bindingMaximum(supSide, 'maxItems');
  if (
    (subMax?.value ?? Infinity) !== (supMax?.value ?? Infinity) &&
    (supMax !== undefined || bindingMaximum(sub, 'maxItems') !== undefined)
  ) {
    const finding = {
      kind: CHANGE_KINDS.maxItems,
      breaking: (supMax?.value ?? Infinity) < (subMax?.value ?? Infinity),
      subPointer: subMax?.pointer ?? basePointer(sub),
      supPointer: supMax?.pointer ?? basePointer(supSide),
      subject: 'maxItems',
      subValue: subMax === undefined ? 'none' : String(subMax.value),
      supValue: supMax === undefined ? 'none' : String(supMax.value),
      gap: `arrays with more than ${supMax?.value} items`,
    };
    changes.push(changeOfFinding(sub.doc.side, finding));
  }
  return changes;
}

function uniqueChanges(sub: Conjunction, supSide: Conjunction): SchemaChange[] {
  const subPart = sub.parts.find((part) => part.node.uniqueItems === true);
  const supPart = supSide.parts.find((part) => part.node.uniqueItems === true);
  if ((subPart === undefined) === (supPart === undefined)) return [];
  const breaking = supPart !== undefined && (effectiveMaxItems(sub)?.value ?? Infinity) > 1;
  const finding = {
    kind: CHANGE_KINDS.uniqueItems,
    breaking,
    subPointer: subPart ? childPointer(subPart.pointer, 'uniqueItems') : basePointer(sub),
    supPointer: supPart ? childPointer(supPart.pointer, 'uniqueItems') : basePointer(supSide),
    subject: 'uniqueItems',
    subValue: String(subPart !== undefined),
    supValue: String(supPart !== undefined),
    gap: 'arrays with duplicate items',
  };
  return [changeOfFinding(sub.doc.side, finding)];
}

interface ContainsRule {
  readonly located: Located;
  readonly min: number;
  readonly max: number | undefined;
}

function containsRules(conjunction: Conjunction): ContainsRule[] {
  return conjunction.parts.flatMap((part) =>
    schemaKeyword(part.node, 'contains') === undefined
      ? []
      : [
          {
            located: conjunction.doc.locate(childPointer(part.pointer, 'contains')),
            min: numberKeyword(part.node, 'minContains') ?? 1,
            max: numberKeyword(part.node, 'maxContains'),
          },
        ],
  );
}

/** contains (with minContains/maxContains): decided when the sub side has a matching contains or all items fit. */
function containsChanges(comparison: Comparison, sub: Conjunction, supSide: Conjunction): SchemaChange[] {
  const [supRule] = containsRules(supSide);
  const subRules = containsRules(sub);
  const finding = { subject: 'contains', subPointer: subRules[0]?.located.pointer ?? basePointer(sub) };
  if (supRule === undefined) {
    const relaxed = subRules.find((rule) => rule.min > 0);
    if (relaxed === undefined) return [];
    const values = { supPointer: basePointer(supSide), subValue: 'a schema', supValue: 'none', gap: '' };
    return [changeOfFinding(sub.doc.side, { ...finding, ...values, kind: CHANGE_KINDS.contains, breaking: false })];
  }
  const values = { supPointer: supRule.located.pointer, subValue: subRules.length === 0 ? 'none' : 'a schema', supValue: 'a schema' };
  if (supRule.max !== undefined) {
    const exact = subRules.some(
      (rule) =>
        comparison.areIdentical(rule.located, supRule.located) &&
        rule.max !== undefined &&
        rule.max <= (supRule.max ?? 0) &&
        rule.min >= supRule.min,
    );
    if (exact) return [];
    const gap = 'arrays whose count of matching items is not proven to fit minContains/maxContains';
    return [changeOfFinding(sub.doc.side, { ...finding, ...values, kind: CHANGE_KINDS.undecidableContains, breaking: true, gap })];
  }
  if (supRule.min === 0) return [];
  const covered = subRules.some((rule) => rule.min >= supRule.min && comparison.holds(conjunctionAt(rule.located), supRule.located));
  const [everyItem] = schemasAtIndex(sub, longestPrefix(sub));
  const allItemsMatch =
    longestPrefix(sub) === 0 &&
    everyItem !== undefined &&
    effectiveMinItems(sub) >= supRule.min &&
    comparison.holds(conjunctionAt(everyItem), supRule.located);
  if (covered || allItemsMatch) return [];
  const kind = subRules.length === 0 ? CHANGE_KINDS.contains : CHANGE_KINDS.undecidableContains;
  const gap = `arrays without ${supRule.min === 1 ? 'an item' : `${supRule.min} items`} matching the ${sub.doc.side === 'old' ? 'new' : 'old'} contains`;
  return [changeOfFinding(sub.doc.side, { ...finding, ...values, kind, breaking: true, gap })];
}

/** Compares every array keyword of the sub side with the sup-side node. */
export function compareArrays(comparison: Comparison, sub: Conjunction, sup: Located): SchemaChange[] {
  const supSide = conjunctionAt(sup);
  return [
    ...itemChanges(comparison, sub, supSide),
    ...countChanges(sub, supSide),
    ...uniqueChanges(sub, supSide),
    ...containsChanges(comparison, sub, supSide),
  ];
}
