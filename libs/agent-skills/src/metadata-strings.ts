import { isMapping } from './yaml-text.js';

/** Vendor namespaces of `metadata` that may hold nested values (every other metadata value is a string). */
export const VENDOR_NAMESPACES = ['dcc-mcp'] as const;

/**
 * The string-to-string view of frontmatter `metadata`, for consumers that require the agentskills.io string map
 * (MCP SEP-2640 SDKs). One rule:
 * - a top-level string value is kept as is, under its own key;
 * - a vendor namespace object (`dcc-mcp`) is flattened one level into dotted keys `<namespace>.<key>` (seed 004's
 *   spelling, e.g. `dcc-mcp.version`): a string stays as is, a number or boolean becomes its JSON text (`3`,
 *   `true`), a list of scalars none of which contains a comma becomes one comma-joined string (`geometry,create`),
 *   and anything else (objects, lists of objects, strings with commas) becomes its JSON encoding;
 * - a nested key wins over a flat key of the same dotted spelling (the flat pre-0.15 form is not read);
 * - null values and every other non-string top-level value (refused by validation) are left out.
 */
export function projectMetadataStrings(metadata: Record<string, unknown>): Record<string, string> {
  const projected: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value === 'string') {
      if (!(key in projected)) projected[key] = value;
    } else if ((VENDOR_NAMESPACES as readonly string[]).includes(key) && isMapping(value)) {
      for (const [field, fieldValue] of Object.entries(value)) {
        const text = projectValue(fieldValue);
        if (text !== null) projected[`${key}.${field}`] = text;
      }
    }
  }
  return projected;
}

function projectValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value) && value.every(isCommaFreeScalar)) return value.map((item) => String(item)).join(',');
  return JSON.stringify(value);
}

function isCommaFreeScalar(value: unknown): boolean {
  return (typeof value === 'string' && !value.includes(',')) || typeof value === 'number' || typeof value === 'boolean';
}
