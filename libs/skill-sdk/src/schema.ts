import { z } from 'zod';

export { z };

/** JSON Schema (draft 2020-12) of a zod schema, as the registry stores and serves it. */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'throw' }) as Record<string, unknown>;
}

/** A property whose JSON Schema lacks a `description`: the pointer to it. */
export function findUndescribedProperties(jsonSchema: unknown, pointer = ''): string[] {
  const missing: string[] = [];
  visit(jsonSchema, pointer, missing);
  return missing;
}

function visit(node: unknown, pointer: string, missing: string[]): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    node.forEach((item, index) => visit(item, `${pointer}/${index}`, missing));
    return;
  }
  const record = node as Record<string, unknown>;
  const properties = record.properties;
  if (properties && typeof properties === 'object' && !Array.isArray(properties)) {
    for (const [key, property] of Object.entries(properties as Record<string, unknown>)) {
      const propertyPointer = `${pointer}/properties/${escapePointer(key)}`;
      if (!hasDescription(property)) missing.push(propertyPointer);
      visit(property, propertyPointer, missing);
    }
  }
  for (const [key, child] of Object.entries(record)) {
    if (key === 'properties') continue;
    if (child && typeof child === 'object') visit(child, `${pointer}/${escapePointer(key)}`, missing);
  }
}

function hasDescription(property: unknown): boolean {
  if (!property || typeof property !== 'object') return false;
  const record = property as Record<string, unknown>;
  if (typeof record.description === 'string' && record.description.trim() !== '') return true;
  // A reference to a described definition counts as described.
  return typeof record.$ref === 'string';
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
