import { z } from 'zod';

/**
 * The wire views of the REST API, declared once as zod schemas next to their presenters and
 * registered here under their OpenAPI component name. The presenters' return types are
 * `z.input<...>` of these schemas (tsc refuses a presenter that drifts), the document's
 * `components.schemas` are generated from them (z.toJSONSchema), and the contract test validates every
 * e2e answer against that document (test/e2e/openapi-contract.e2e-spec.ts), so code, types and
 * document cannot disagree.
 */
const apiComponents = z.registry<{ id: string; description?: string }>();

export type JsonSchema = Record<string, unknown>;

/** Registers `schema` as the OpenAPI component `id` and returns it. */
export function apiComponent<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  apiComponents.add(schema, description ? { id, description } : { id });
  return schema;
}

/** `{ $ref }` of a registered component. */
export function componentRef(schema: z.ZodType): { $ref: string } {
  const meta = apiComponents.get(schema);
  if (!meta) throw new Error('OpenAPI: a response schema is not registered with apiComponent()');
  return { $ref: `#/components/schemas/${meta.id}` };
}

/** Keeps generated schemas readable: no safe-integer bounds zod adds to every int, no datetime regex beside format. */
function tidy(context: { jsonSchema: JsonSchema }): void {
  const schema = context.jsonSchema;
  if (schema.minimum === Number.MIN_SAFE_INTEGER) delete schema.minimum;
  if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum;
  if (schema.format === 'date-time' || schema.format === 'uuid' || schema.format === 'email') delete schema.pattern;
}

const COMMON = { target: 'draft-2020-12', unrepresentable: 'any', override: tidy } as const;

/** Every registered component as JSON Schema 2020-12 (OpenAPI 3.1 schema objects), referencing each other by $ref. */
export function componentSchemas(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(apiComponents, {
    ...COMMON,
    metadata: apiComponents,
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, JsonSchema> };
  return Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      const { $schema: _schema, $id: _id, ...rest } = schema;
      return [id, rest];
    }),
  );
}

/** One schema as JSON Schema, inlined (request bodies and parameters: what the parser accepts). */
export function inlineSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const { $schema: _schema, ...rest } = z.toJSONSchema(schema, { ...COMMON, io }) as JsonSchema;
  return rest;
}
