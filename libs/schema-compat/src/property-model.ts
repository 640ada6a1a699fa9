import type { Conjunction } from './conjunction.js';
import { childPointer } from './json-pointer.js';
import { isSchemaObject, schemaKeyword, schemaMapKeyword, stringListKeyword } from './keywords.js';
import type { Located } from './schema-document.js';

const compiled = new Map<string, RegExp>();

/** True when a `patternProperties` pattern matches a property name (unicode, unanchored, as Ajv does). */
function patternMatches(pattern: string, name: string): boolean {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    regex = new RegExp(pattern, 'u');
    compiled.set(pattern, regex);
  }
  return regex.test(name);
}

/** A `patternProperties` entry of one part. */
export interface PatternEntry {
  readonly pattern: string;
  readonly located: Located;
}

/** The property names declared in `properties` by any part. */
export function declaredNames(conjunction: Conjunction): string[] {
  return [...new Set(conjunction.parts.flatMap((part) => schemaMapKeyword(part.node, 'properties').map(([name]) => name)))];
}

/** Where the first part declaring `name` in `properties` does so. */
export function declarationOf(conjunction: Conjunction, name: string): Located | undefined {
  for (const part of conjunction.parts) {
    if (schemaMapKeyword(part.node, 'properties').some(([declared]) => declared === name)) {
      return conjunction.doc.locate(childPointer(part.pointer, 'properties', name));
    }
  }
  return undefined;
}

/**
 * The schemas a property named `name` must satisfy: per part, its `properties` entry and matching
 * `patternProperties`, or else its `additionalProperties`. An empty list means any value.
 */
export function schemasForName(conjunction: Conjunction, name: string): Located[] {
  return conjunction.parts.flatMap((part) => {
    const found: Located[] = [];
    if (schemaMapKeyword(part.node, 'properties').some(([declared]) => declared === name)) {
      found.push(conjunction.doc.locate(childPointer(part.pointer, 'properties', name)));
    }
    for (const [pattern] of schemaMapKeyword(part.node, 'patternProperties')) {
      if (patternMatches(pattern, name)) found.push(conjunction.doc.locate(childPointer(part.pointer, 'patternProperties', pattern)));
    }
    if (found.length === 0 && schemaKeyword(part.node, 'additionalProperties') !== undefined) {
      found.push(conjunction.doc.locate(childPointer(part.pointer, 'additionalProperties')));
    }
    return found;
  });
}

/** Every `patternProperties` entry of every part. */
export function patternEntries(conjunction: Conjunction): PatternEntry[] {
  return conjunction.parts.flatMap((part) =>
    schemaMapKeyword(part.node, 'patternProperties').map(([pattern]) => ({
      pattern,
      located: conjunction.doc.locate(childPointer(part.pointer, 'patternProperties', pattern)),
    })),
  );
}

/** The `additionalProperties` schemas of the parts (an empty list means any value). */
export function additionalSchemas(conjunction: Conjunction): Located[] {
  return conjunction.parts.flatMap((part) =>
    schemaKeyword(part.node, 'additionalProperties') === undefined
      ? []
      : [conjunction.doc.locate(childPointer(part.pointer, 'additionalProperties'))],
  );
}

/**
 * Required property names with the pointer of the keyword that requires each: `required`, or a
 * `dependentRequired` entry whose trigger is itself required.
 */
export function requiredNames(conjunction: Conjunction): Map<string, string> {
  const names = new Map<string, string>();
  for (const part of conjunction.parts) {
    for (const name of stringListKeyword(part.node, 'required'))
      if (!names.has(name)) names.set(name, childPointer(part.pointer, 'required'));
  }
  for (let grown = names.size > 0; grown;) {
    grown = false;
    for (const part of conjunction.parts) {
      for (const [trigger, dependents] of dependentRequiredEntries(part.node)) {
        if (!names.has(trigger)) continue;
        for (const name of dependents) {
          if (names.has(name)) continue;
          names.set(name, childPointer(part.pointer, 'dependentRequired', trigger));
          grown = true;
        }
      }
    }
  }
  return names;
}

function dependentRequiredEntries(node: Readonly<Record<string, unknown>>): [string, string[]][] {
  const map = node.dependentRequired;
  if (!isSchemaObject(map)) return [];
  return Object.keys(map).map((trigger) => [trigger, stringListKeyword(map, trigger)]);
}

/** The pointer to name in a report when a conjunction has no keyword of its own for something. */
export function basePointer(conjunction: Conjunction): string {
  return conjunction.parts[0]?.pointer ?? '';
}
