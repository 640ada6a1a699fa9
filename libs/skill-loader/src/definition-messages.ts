import semver from 'semver';

/** What each field (or nested field, `*` for an index) must be, for messages. */
export const EXPECTATIONS: Record<string, string> = {
  name: 'a snake_case string matching ^[a-z][a-z0-9_]*$ (e.g. "validate_stress")',
  version: 'a semantic version MAJOR.MINOR.PATCH with an optional -prerelease (e.g. "0.1.0"; no "v" prefix, no +build)',
  domain: 'a non-empty string (e.g. "mechanical")',
  agent: 'a non-empty string naming the owning agent (e.g. "mechanical")',
  description: 'a non-empty one-line string',
  phase: 'an integer 1, 2 or 3',
  tools_required: 'an array of tool references (may be empty)',
  'tools_required.*': 'an object { "tool_id": "<adapter>.<method>", "capability": "...", "required": true }',
  'tools_required.*.tool_id': 'a tool id of the form <adapter>.<method> (e.g. "calculix.run_fea")',
  'tools_required.*.capability': 'a non-empty string',
  'tools_required.*.required': 'a boolean',
  input_schema: 'a reference "schema.<ExportName>" to an export of schema.ts',
  output_schema: 'a reference "schema.<ExportName>" to an export of schema.ts',
  timeout_seconds: 'an integer >= 1 (seconds)',
  retries: 'an integer >= 0',
  idempotent: 'a boolean',
  max_retries_per_gate: 'an integer 0 to 3 (re-asks of an invalid result within one attempt)',
  tags: 'an array of strings',
  'tags.*': 'a non-empty string',
  examples: 'an array of examples',
  'examples.*': 'an object { "input": {...}, "output"?: {...}, "description"?: "...", "twin"?: {...} }',
  'examples.*.input': 'a JSON object',
  'examples.*.output': 'a JSON object',
  'examples.*.description': 'a string',
  'examples.*.twin': 'an object { "work_products": [...] } naming the work products the example needs on its branch',
  'examples.*.twin.work_products': 'an array of 1 to 50 work products',
  'examples.*.twin.work_products.*':
    'an object { "id": "<uuid>", "kind": "mesh", "name": "...", "media_type": "text/plain", "content": "..." or "content_file": "examples/..." }',
  'examples.*.twin.work_products.*.id': 'a UUID (e.g. "3f1c2a9e-6b7d-4c1e-9a55-2d8e4b7f0c11")',
  'examples.*.twin.work_products.*.kind': 'a work product kind in lower_snake_case (e.g. "mesh", "cad_model")',
  'examples.*.twin.work_products.*.name': 'a non-empty string',
  'examples.*.twin.work_products.*.media_type': 'a media type <type>/<subtype> (e.g. "text/x-calculix-inp")',
  'examples.*.twin.work_products.*.content': 'a string (the content as UTF-8 text)',
  'examples.*.twin.work_products.*.content_file': 'a path relative to the package directory (e.g. "examples/mesh.inp")',
  'examples.*.twin.work_products.*.metadata': 'a JSON object',
  'examples.*.twin.work_products.*.constraints': 'an array of constraints',
  'examples.*.twin.work_products.*.constraints.*': 'an object { "kind": "<constraint kind>", ... }',
  'examples.*.twin.work_products.*.constraints.*.kind': 'a non-empty string naming the constraint kind (e.g. "max_von_mises_stress")',
  depends_on: 'an array of dependencies (may be empty)',
  'depends_on.*': 'an object { "name": "<skill name>", "range": "^1.2" }',
  'depends_on.*.name': 'a skill name matching ^[a-z][a-z0-9_]*$',
  'depends_on.*.range': 'a semver range (e.g. "^1.2", "~0.3.1", ">=1 <2", "*")',
  compatibility: 'one of "backward", "full" or "none"',
  title: 'a one-line string of at most 100 characters (the tool title agents see)',
  destructive: 'a boolean',
  open_world: 'a boolean',
  task_support: 'one of "forbidden", "optional" or "required"',
};

/** A fix for a field that breaks its rule, from the value found. */
export function hintFor(path: PropertyKey[], value: unknown, expectation: string): string {
  const field = path[0];
  if (field === 'version' && typeof value === 'string') {
    const coerced = semver.coerce(value)?.version;
    return coerced ? `Use a strict semantic version, e.g. "${coerced}".` : `Use ${expectation}.`;
  }
  if (field === 'name' && typeof value === 'string') {
    const snake = value
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/[^A-Za-z0-9]+/g, '_')
      .toLowerCase()
      .replace(/^[^a-z]+/, '');
    return snake ? `Use snake_case, e.g. "${snake}".` : `Use ${expectation}.`;
  }
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return `Write the number without quotes: ${value}.`;
  if (value === 'true' || value === 'false') return `Write the boolean without quotes: ${value}.`;
  return `Set it to ${expectation}.`;
}

/** `tools_required[0].tool_id` for a path of keys and indexes. */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  return path
    .map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : `${index === 0 ? '' : '.'}${String(segment)}`))
    .join('');
}

/** The allowed name nearest to `key` (edit distance ≤ 2 or a case/underscore variant), if any. */
export function closest(key: string, candidates: readonly string[]): string | undefined {
  const normalized = key.toLowerCase().replace(/[-\s]/g, '_');
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = candidate === normalized ? 0 : editDistance(normalized, candidate);
    if (distance <= 2 && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
