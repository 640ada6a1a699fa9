import { describeValue } from './describe.js';
import { IssueList } from './issues.js';
import type { RuntimeSdk } from './module-runtime.js';

/** A definition's `input_schema`/`output_schema`: `schema.<ExportName>`. */
export const SCHEMA_REF_PATTERN = /^schema\.([A-Za-z_$][A-Za-z0-9_$]*)$/;

/** Input or output side of a skill. */
export type SchemaRole = 'input' | 'output';

/** A schema.ts export resolved from definition.json and turned into JSON Schema. */
export interface ResolvedSchema {
  exportName: string;
  /** The zod schema exported by schema.ts. */
  schema: unknown;
  /** JSON Schema 2020-12 (io = role), or null when it could not be derived. */
  jsonSchema: Record<string, unknown> | null;
}

/** Export name in a `schema.<ExportName>` reference. */
export function exportNameOf(reference: string): string {
  return SCHEMA_REF_PATTERN.exec(reference)?.[1] ?? reference;
}

/** True for a zod 4 schema from any copy of zod (checked structurally, not with instanceof). */
function isZodSchema(value: unknown): boolean {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
  const internals = (value as { _zod?: { def?: unknown } })._zod;
  return typeof internals === 'object' && internals !== null && typeof internals.def === 'object';
}

/**
 * Resolve the export named by `input_schema`/`output_schema`, check it is a zod schema representable as JSON
 * Schema, and apply the schema rules. Issues name the export; paths are JSON pointers into its JSON Schema.
 */
export function resolveSchema(
  role: SchemaRole,
  reference: string,
  schemaExports: Record<string, unknown>,
  sdk: RuntimeSdk,
  issues: IssueList,
  reportedPointers: Set<string>,
): ResolvedSchema | null {
  const field = `${role}_schema`;
  const exportName = exportNameOf(reference);
  const available = Object.keys(schemaExports).filter((name) => name !== '__esModule' && name !== 'default');
  if (!(exportName in schemaExports) || exportName === '__esModule') {
    const zodExports = available.filter((name) => isZodSchema(schemaExports[name]));
    issues.error(
      'schema',
      'definition.json',
      `/${field}`,
      `${field} names '${reference}' but schema.ts has no export '${exportName}'`,
      available.length === 0
        ? `schema.ts exports nothing: add "export const ${exportName} = z.object({...})".`
        : `schema.ts exports: ${available.join(', ')}${zodExports.length !== available.length ? ` (zod schemas: ${zodExports.join(', ') || 'none'})` : ''}. Point ${field} at one of them or export ${exportName}.`,
    );
    return null;
  }
  const schema = schemaExports[exportName];
  if (!isZodSchema(schema)) {
    const zod3 = schema !== null && typeof schema === 'object' && '_def' in schema && 'safeParse' in schema;
    issues.error(
      'schema',
      'schema.ts',
      '',
      `export '${exportName}' (the ${role} schema) is not a zod schema: found ${zod3 ? 'a zod 3 schema' : describeValue(schema)}`,
      `Define it with zod 4, e.g. "export const ${exportName} = z.object({ ... })" with z from '@skill-registry/sdk' or 'zod'.`,
    );
    return { exportName, schema, jsonSchema: null };
  }
  let jsonSchema: Record<string, unknown>;
  try {
    jsonSchema = sdk.toJsonSchema(schema, role);
  } catch (error) {
    const reason = error !== null && typeof error === 'object' && 'message' in error ? String(error.message) : String(error);
    issues.error(
      'schema',
      'schema.ts',
      '',
      `${role} schema '${exportName}' cannot be represented as JSON Schema: ${reason}`,
      'Use only JSON-representable zod types (no z.date(), z.bigint(), z.map(), z.set(), z.symbol(), z.function(); transforms only on the input side). Use strings with a format instead, e.g. z.iso.datetime().',
    );
    return { exportName, schema, jsonSchema: null };
  }
  checkSchemaRules(role, exportName, jsonSchema, sdk, issues, reportedPointers);
  return { exportName, schema, jsonSchema };
}

function checkSchemaRules(
  role: SchemaRole,
  exportName: string,
  jsonSchema: Record<string, unknown>,
  sdk: RuntimeSdk,
  issues: IssueList,
  reportedPointers: Set<string>,
): void {
  if (jsonSchema.type !== 'object') {
    const found = typeof jsonSchema.type === 'string' ? `type '${jsonSchema.type}'` : describeSchemaShape(jsonSchema);
    const message = `${role} schema '${exportName}' must describe a JSON object, but its JSON Schema has ${found}`;
    const hint = `Make '${exportName}' a z.object({ ... }) whose properties are the ${role} fields.`;
    if (role === 'input') issues.error('schema', 'schema.ts', '', message, hint);
    else issues.warning('schema', 'schema.ts', '', `${message} (MCP clients expect an object as structured output)`, hint);
  }
  for (const pointer of sdk.findUndescribedProperties(jsonSchema)) {
    const key = `${exportName}#${pointer}`;
    if (reportedPointers.has(key)) continue;
    reportedPointers.add(key);
    const property = propertyLabel(pointer);
    issues.error(
      'schema',
      'schema.ts',
      pointer,
      `property '${property}' of ${role} schema '${exportName}' has no description`,
      `Add .describe('...') to '${property}' in schema.ts: agents read the description to fill the field (state units in the name or description).`,
    );
  }
}

function describeSchemaShape(jsonSchema: Record<string, unknown>): string {
  for (const keyword of ['anyOf', 'oneOf', 'allOf', '$ref', 'enum', 'const', 'not']) {
    if (keyword in jsonSchema) return `no type but '${keyword}'`;
  }
  return 'no type';
}

/** `a.b[].c` for `/properties/a/properties/b/items/properties/c`. */
function propertyLabel(pointer: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  let label = '';
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index];
    if (segment === 'properties' && index + 1 < segments.length) label += (label ? '.' : '') + segments[++index];
    else if (segment === 'items' || segment === 'prefixItems') label += '[]';
    else if (segment === 'additionalProperties') label += '{}';
    else if ((segment === '$defs' || segment === 'definitions') && index + 1 < segments.length) label = `#${segments[++index]}`;
  }
  return label || pointer;
}
