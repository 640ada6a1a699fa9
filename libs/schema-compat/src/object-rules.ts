import { CHANGE_KINDS } from './change-kinds.js';
import type { SchemaChange } from './compatibility-report.js';
import type { Comparison } from './comparison.js';
import { type Conjunction, conjunctionAt, conjunctionOf, syntheticPart, withParts } from './conjunction.js';
import { type Limit, bindingMaximum, bindingMinimum } from './constraints.js';
import { childPointer } from './json-pointer.js';
import { isSchemaObject, schemaKeyword, schemaMapKeyword, stringListKeyword } from './keywords.js';
import { admitsNothing } from './possible-types.js';
import { additionalSchemas, basePointer, declaredNames, patternEntries, requiredNames, schemasForName } from './property-model.js';
import { compareProperties } from './property-rules.js';
import { breakingOnly, changeOfFinding } from './reporting.js';
import type { Located } from './schema-document.js';

function forbids(conjunction: Conjunction, name: string): boolean {
  return admitsNothing(conjunctionOf(conjunction.doc, schemasForName(conjunction, name)));
}

function requiredChanges(sub: Conjunction, supSide: Conjunction): SchemaChange[] {
  const subRequired = requiredNames(sub);
  const supRequired = requiredNames(supSide);
  const finding = (name: string, breaking: boolean) => ({
    kind: CHANGE_KINDS.required,
    breaking,
    subPointer: subRequired.get(name) ?? basePointer(sub),
    supPointer: supRequired.get(name) ?? basePointer(supSide),
    subject: `whether property '${name}' is required`,
    subValue: subRequired.has(name) ? 'required' : 'optional',
    supValue: supRequired.has(name) ? 'required' : 'optional',
    gap: `objects without '${name}'`,
  });
  return [
    ...[...supRequired.keys()].filter((name) => !subRequired.has(name)).map((name) => changeOfFinding(sub.doc.side, finding(name, true))),
    ...[...subRequired.keys()].filter((name) => !supRequired.has(name)).map((name) => changeOfFinding(sub.doc.side, finding(name, false))),
  ];
}

/** The most properties a sub-side object can have: maxProperties, or the count a closed model allows. */
function effectiveMaxProperties(sub: Conjunction): Limit | undefined {
  const declared = bindingMaximum(sub, 'maxProperties');
  const closed = admitsNothing(conjunctionOf(sub.doc, additionalSchemas(sub))) && patternEntries(sub).length === 0;
  if (!closed) return declared;
  const allowed = declaredNames(sub).filter((name) => !forbids(sub, name)).length;
  return declared === undefined || allowed < declared.value ? { value: allowed, pointer: basePointer(sub) } : declared;
}

function effectiveMinProperties(sub: Conjunction): Limit | undefined {
  const declared = bindingMinimum(sub, 'minProperties');
  const required = requiredNames(sub).size;
  return declared === undefined || required > declared.value ? { value: required, pointer: basePointer(sub) } : declared;
}

function countChanges(sub: Conjunction, supSide: Conjunction): SchemaChange[] {
  const show = (limit: Limit | undefined, fallback: string) => (limit === undefined ? fallback : String(limit.value));
  const changes: SchemaChange[] = [];
  const subMin = effectiveMinProperties(sub)?.value ?? 0;
  const supMin = bindingMinimum(supSide, 'minProperties');
  const subMax = effectiveMaxProperties(sub);
  const supMax = bindingMaximum(supSide, 'maxProperties');
  const ownMin = bindingMinimum(sub, 'minProperties');
  if ((supMin?.value ?? 0) !== subMin && (supMin !== undefined || ownMin !== undefined)) {
    const breaking = (supMin?.value ?? 0) > subMin;
    const pointers = { subPointer: ownMin?.pointer ?? basePointer(sub), supPointer: supMin?.pointer ?? basePointer(supSide) };
    const values = { subject: 'minProperties', subValue: String(subMin), supValue: show(supMin, '0') };
    const gap = `objects with fewer than ${supMin?.value} properties`;
    changes.push(changeOfFinding(sub.doc.side, { kind: CHANGE_KINDS.minProperties, breaking, ...pointers, ...values, gap }));
  }
  const subMaxValue = subMax?.value ?? Infinity;
  const supMaxValue = supMax?.value ?? Infinity;
  if (subMaxValue !== supMaxValue && (supMax !== undefined || bindingMaximum(sub, 'maxProperties') !== undefined)) {
    const breaking = supMaxValue < subMaxValue;
    const pointers = { subPointer: subMax?.pointer ?? basePointer(sub), supPointer: supMax?.pointer ?? basePointer(supSide) };
    const values = { subject: 'maxProperties', subValue: show(subMax, 'none'), supValue: show(supMax, 'none') };
    const gap = `objects with more than ${supMaxValue} properties`;
    changes.push(changeOfFinding(sub.doc.side, { kind: CHANGE_KINDS.maxProperties, breaking, ...pointers, ...values, gap }));
  }
  return changes;
}

function dependencyPairs(conjunction: Conjunction): { trigger: string; name: string; pointer: string }[] {
  return conjunction.parts.flatMap((part) => {
    const map = part.node.dependentRequired;
    if (!isSchemaObject(map)) return [];
    return Object.keys(map).flatMap((trigger) =>
      stringListKeyword(map, trigger).map((name) => ({ trigger, name, pointer: childPointer(part.pointer, 'dependentRequired', trigger) })),
    );
  });
}

/** dependentRequired: each sup-side "if A then B" must already hold on the sub side. */
function dependentRequiredChanges(sub: Conjunction, supSide: Conjunction): SchemaChange[] {
  const subPairs = dependencyPairs(sub);
  const supPairs = dependencyPairs(supSide);
  const subRequired = requiredNames(sub);
  const guaranteed = (trigger: string, name: string) =>
    trigger === name ||
    subRequired.has(name) ||
    forbids(sub, trigger) ||
    subPairs.some((pair) => pair.trigger === trigger && pair.name === name) ||
    dependentSchemasOf(sub, trigger).some(
      (located) => isSchemaObject(located.node) && stringListKeyword(located.node, 'required').includes(name),
    );
  const finding = (trigger: string, name: string, breaking: boolean, subPointer: string, supPointer: string) => ({
    kind: CHANGE_KINDS.dependentRequired,
    breaking,
    subPointer,
    supPointer,
    subject: `whether '${name}' is required when '${trigger}' is present`,
    subValue: breaking ? 'no' : 'yes',
    supValue: breaking ? 'yes' : 'no',
    gap: `objects with '${trigger}' but without '${name}'`,
  });
  const added = supPairs
    .filter((pair) => !guaranteed(pair.trigger, pair.name))
    .map((pair) => changeOfFinding(sub.doc.side, finding(pair.trigger, pair.name, true, basePointer(sub), pair.pointer)));
  const dropped = subPairs
    .filter((pair) => !supPairs.some((other) => other.trigger === pair.trigger && other.name === pair.name))
    .map((pair) => changeOfFinding(sub.doc.side, finding(pair.trigger, pair.name, false, pair.pointer, basePointer(supSide))));
  return [...added, ...dropped];
}

function dependentSchemasOf(conjunction: Conjunction, trigger: string): Located[] {
  return conjunction.parts.flatMap((part) =>
    schemaMapKeyword(part.node, 'dependentSchemas').some(([name]) => name === trigger)
      ? [conjunction.doc.locate(childPointer(part.pointer, 'dependentSchemas', trigger))]
      : [],
  );
}

/** dependentSchemas: objects of the sub side that have the trigger property must satisfy the sup-side schema. */
function dependentSchemaChanges(comparison: Comparison, sub: Conjunction, supSide: Conjunction): SchemaChange[] {
  const supEntries = supSide.parts.flatMap((part) => schemaMapKeyword(part.node, 'dependentSchemas').map(([trigger]) => trigger));
  const changes = supEntries.flatMap((trigger) => {
    if (forbids(sub, trigger)) return [];
    const subSchemas = dependentSchemasOf(sub, trigger);
    const having = syntheticPart(basePointer(sub), { type: 'object', required: [trigger] }, `has:${trigger}`);
    const restricted = withParts(sub, [having, ...conjunctionOf(sub.doc, subSchemas).parts]);
    const supSchema = dependentSchemasOf(supSide, trigger)[0];
    const children = breakingOnly(comparison.check(restricted, supSchema));
    if (subSchemas.length > 0 || !children.some((change) => change.breaking)) return children;
    const finding = {
      kind: CHANGE_KINDS.dependentSchema,
      breaking: true,
      subPointer: basePointer(sub),
      supPointer: supSchema.pointer,
      subject: `the schema applied when '${trigger}' is present`,
      subValue: 'none',
      supValue: 'a dependent schema',
      gap: `some objects with '${trigger}'`,
    };
    return [changeOfFinding(sub.doc.side, finding), ...children];
  });
  const dropped = sub.parts.flatMap((part) =>
    schemaMapKeyword(part.node, 'dependentSchemas')
      .filter(([trigger]) => !supEntries.includes(trigger))
      .map(([trigger]) => {
        const finding = {
          kind: CHANGE_KINDS.dependentSchema,
          breaking: false,
          subPointer: childPointer(part.pointer, 'dependentSchemas', trigger),
          supPointer: basePointer(supSide),
          subject: `the schema applied when '${trigger}' is present`,
          subValue: 'a dependent schema',
          supValue: 'none',
          gap: '',
        };
        return changeOfFinding(sub.doc.side, finding);
      }),
  );
  return [...changes, ...dropped];
}

/** propertyNames: every name a sub-side object can have must be valid under the sup-side schema. */
function propertyNameChanges(comparison: Comparison, sub: Conjunction, supSide: Conjunction, sup: Located): SchemaChange[] {
  const subNames = sub.parts.flatMap((part) =>
    schemaKeyword(part.node, 'propertyNames') === undefined ? [] : [sub.doc.locate(childPointer(part.pointer, 'propertyNames'))],
  );
  const supNames = schemaKeyword(sup.node as Record<string, unknown>, 'propertyNames');
  const finding = { kind: CHANGE_KINDS.propertyNames, subject: 'propertyNames', subPointer: subNames[0]?.pointer ?? basePointer(sub) };
  if (supNames === undefined) {
    if (subNames.length === 0) return [];
    const values = { subValue: 'a schema', supValue: 'none', supPointer: sup.pointer, gap: '' };
    return [changeOfFinding(sub.doc.side, { ...finding, ...values, breaking: false })];
  }
  const supLocated = sup.doc.locate(childPointer(sup.pointer, 'propertyNames'));
  const asString = (located: Located) => withParts(conjunctionAt(located), [syntheticPart(located.pointer, { type: 'string' }, 'name')]);
  if (subNames.some((located) => comparison.holds(asString(located), supLocated))) return [];
  const closed = admitsNothing(conjunctionOf(sub.doc, additionalSchemas(sub))) && patternEntries(sub).length === 0;
  const namesFit = () =>
    declaredNames(sub)
      .filter((name) => !forbids(sub, name))
      .every((name) => comparison.oracle.validateAt(sup.doc, supLocated.pointer, name)?.valid === true);
  if (closed && namesFit()) return [];
  const values = { subValue: subNames.length === 0 ? 'none' : 'a schema', supValue: 'a schema', supPointer: supLocated.pointer };
  return [
    changeOfFinding(sub.doc.side, {
      ...finding,
      ...values,
      breaking: true,
      gap: 'objects with property names outside that propertyNames schema',
    }),
  ];
}

/** Compares every object keyword of the sub side with the sup-side node. */
export function compareObjects(comparison: Comparison, sub: Conjunction, sup: Located): SchemaChange[] {
  const supSide = conjunctionAt(sup);
  return [
    ...requiredChanges(sub, supSide),
    ...compareProperties(comparison, sub, supSide),
    ...countChanges(sub, supSide),
    ...dependentRequiredChanges(sub, supSide),
    ...dependentSchemaChanges(comparison, sub, supSide),
    ...propertyNameChanges(comparison, sub, supSide, sup),
  ];
}
