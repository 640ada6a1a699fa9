import { ScrollBox } from './ScrollBox';

type Schema = Record<string, unknown>;

function asSchema(value: unknown): Schema | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Schema) : null;
}

/** `type` of a schema in words: `string (email)`, `integer`, `array of number`, `"a" | "b"`. */
function typeOf(schema: Schema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema.const);
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : typeof schema.type === 'string' ? schema.type : '';
  if (type === 'array') {
    const items = asSchema(schema.items);
    return `array of ${items ? typeOf(items) || 'any' : 'any'}`;
  }
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    if (Array.isArray(schema[key]))
      return (schema[key] as unknown[]).map((option) => typeOf(asSchema(option) ?? {}) || 'object').join(key === 'allOf' ? ' & ' : ' | ');
  }
  if (typeof schema.$ref === 'string') return schema.$ref;
  return typeof schema.format === 'string' ? `${type} (${schema.format})` : type;
}

const CONSTRAINTS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'multipleOf',
  'default',
];

/** Bounds that say nothing to a reader: zod's int() writes the safe-integer range, and a format's own pattern. */
function says(schema: Schema, key: string): boolean {
  const value = schema[key];
  if ((key === 'minimum' || key === 'maximum') && typeof value === 'number') return Math.abs(value) !== Number.MAX_SAFE_INTEGER;
  if (key === 'pattern') return typeof schema.format !== 'string';
  return true;
}

function constraintsOf(schema: Schema): string {
  return CONSTRAINTS.filter((key) => key in schema && says(schema, key))
    .map((key) => `${key} ${JSON.stringify(schema[key])}`)
    .join(', ');
}

interface Row {
  pointer: string;
  name: string;
  depth: number;
  schema: Schema;
  required: boolean;
}

/** The properties of an object schema, and theirs, depth first, with JSON pointers into the schema. */
function rowsOf(schema: Schema, pointer: string, depth: number, into: Row[]): Row[] {
  const properties = asSchema(schema.properties);
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  for (const [name, value] of Object.entries(properties ?? {})) {
    const child = asSchema(value) ?? {};
    const childPointer = `${pointer}/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    into.push({ pointer: childPointer, name, depth, schema: child, required: required.has(name) });
    if (depth < 6) {
      rowsOf(child, childPointer, depth + 1, into);
      const items = asSchema(child.items);
      if (items?.properties) rowsOf(items, `${childPointer}/items`, depth + 1, into);
    }
  }
  return into;
}

/**
 * A JSON Schema as a table a person reads: each property with its type, whether it is required, its
 * constraints and description; `highlight` marks the row at a JSON pointer (a compatibility change).
 */
export function SchemaView({
  schema,
  caption,
  highlight,
  compact = false,
}: {
  schema: unknown;
  caption: string;
  highlight?: string | null;
  /** Without descriptions: two schemas side by side. */
  compact?: boolean;
}) {
  const root = asSchema(schema);
  if (!root) return <p className="muted">{caption}: no schema.</p>;
  const rows = rowsOf(root, '', 0, []);
  if (rows.length === 0) {
    return (
      <p>
        {caption}: <code>{typeOf(root) || 'any'}</code> {root.additionalProperties === false ? '(no properties allowed)' : ''}
      </p>
    );
  }
  return (
    <ScrollBox label={caption}>
      <table className={compact ? 'schema compact' : 'schema'}>
        <caption>
          {caption}
          {root.additionalProperties === false && <span className="muted"> · closed (no other properties)</span>}
        </caption>
        <thead>
          <tr>
            <th scope="col">Property</th>
            <th scope="col">Type</th>
            <th scope="col">Constraints</th>
            {!compact && <th scope="col">Description</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr
              key={row.pointer}
              className={highlight && (highlight === row.pointer || highlight.startsWith(`${row.pointer}/`)) ? 'hit' : undefined}
            >
              <th scope="row" style={{ paddingLeft: `${0.5 + row.depth * 1.1}rem` }}>
                <code>{row.name}</code>
                {row.required && (
                  <abbr className="required" title="required">
                    *
                  </abbr>
                )}
              </th>
              <td>
                <code>{typeOf(row.schema)}</code>
              </td>
              <td className="muted">{constraintsOf(row.schema)}</td>
              {!compact && <td>{typeof row.schema.description === 'string' ? row.schema.description : ''}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}
