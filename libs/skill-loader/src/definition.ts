import semver from 'semver';
import { z } from 'zod';
import { closest, EXPECTATIONS, formatFieldPath, hintFor } from './definition-messages.js';
import { describeValue } from './describe.js';
import { checkTwinFixtureRules, twinFixtureSchema, twinWorkProductSchema, type ExampleTwinFixture } from './example-twin.js';
import { IssueList, toJsonPointer } from './issues.js';
import { SCHEMA_REF_PATTERN } from './schema-check.js';

/** An MCP tool a skill needs, as declared in definition.json. */
export interface AdapterToolRef {
  /** `<adapter>.<method>`, e.g. `calculix.run_fea`. */
  tool_id: string;
  capability: string;
  required: boolean;
}

/** A declared example: an input the skill accepts and, optionally, the output it gives. */
export interface SkillExample {
  input: Record<string, unknown>;
  output?: Record<string, unknown>;
  description?: string;
  /** Work products that must exist on the branch the example runs on (seeded by promotion and `skill-registry test`). */
  twin?: ExampleTwinFixture;
}

/** Another skill this one calls, with the versions it works with (a semver range; `*` for any). */
export interface SkillDependency {
  name: string;
  range: string;
}

/**
 * How a new version's contract must relate to the previous one's: `backward` (default) — the input
 * schema accepts every input the old one did and every output is valid under the old output schema;
 * `full` — both schemas accept exactly what the old ones did in both directions; `none` — no check.
 */
export type CompatibilityPolicy = 'backward' | 'full' | 'none';
export const COMPATIBILITY_POLICIES = ['backward', 'full', 'none'] as const;

/** definition.json of a skill package, with defaults applied. */
export interface SkillDefinition {
  name: string;
  version: string;
  domain: string;
  agent: string;
  description: string;
  phase: number;
  tools_required: AdapterToolRef[];
  /** `schema.<ExportName>`: the schema.ts export describing the input. */
  input_schema: string;
  /** `schema.<ExportName>`: the schema.ts export describing the output. */
  output_schema: string;
  timeout_seconds: number;
  retries: number;
  idempotent: boolean;
  /**
   * Seed 001 §2.3: how many times a result that fails output validation is asked for again within one
   * attempt (0 to 3; idempotent skills only, never past timeout_seconds).
   */
  max_retries_per_gate: number;
  tags: string[];
  examples: SkillExample[];
  read_only: boolean;
  depends_on: SkillDependency[];
  compatibility: CompatibilityPolicy;
  /** MCP annotation `title`: a short display name for the skill's tool. */
  title?: string;
  /** MCP annotation `destructiveHint`: the skill may destroy or overwrite what it works on (default false). */
  destructive: boolean;
  /** MCP annotation `openWorldHint`: the skill reaches entities outside the registry's own world (default false). */
  open_world: boolean;
  /** MCP tasks: whether a call may, must or must not be a task; absent means optional above 30 s, else forbidden. */
  task_support?: 'forbidden' | 'optional' | 'required';
}

/** The most re-asks of an output gate a definition may ask for (seed 001 §2.3). */
const MAX_RETRIES_PER_GATE = 3;

export const SKILL_NAME_PATTERN = /^[a-z][a-z0-9_]*$/;
const TOOL_ID_PATTERN = /^[a-z][a-z0-9_-]*\.[a-z][a-z0-9_]*$/;

/** Strict semver MAJOR.MINOR.PATCH[-prerelease]: no `v` prefix, no build metadata. */
export function isStrictSemver(value: string): boolean {
  return semver.valid(value) === value && !value.includes('+');
}

const nonBlank = (value: string) => value.trim() !== '';

const toolRefSchema = z.strictObject({
  tool_id: z.string().regex(TOOL_ID_PATTERN),
  capability: z.string().refine(nonBlank),
  required: z.boolean().default(true),
});

const exampleSchema = z.strictObject({
  input: z.record(z.string(), z.unknown()),
  output: z.record(z.string(), z.unknown()).optional(),
  description: z.string().optional(),
  twin: twinFixtureSchema.optional(),
});

const dependencySchema = z.strictObject({
  name: z.string().regex(SKILL_NAME_PATTERN),
  range: z
    .string()
    .refine((range) => range.trim() !== '' && semver.validRange(range) !== null)
    .default('*'),
});

const fieldSchemas = {
  name: z.string().regex(SKILL_NAME_PATTERN),
  version: z.string().refine(isStrictSemver),
  domain: z.string().refine(nonBlank),
  agent: z.string().refine(nonBlank),
  description: z.string().refine((value) => nonBlank(value) && !/[\r\n]/.test(value)),
  phase: z.int().min(1).max(3),
  tools_required: z.array(toolRefSchema),
  input_schema: z.string().regex(SCHEMA_REF_PATTERN),
  output_schema: z.string().regex(SCHEMA_REF_PATTERN),
  timeout_seconds: z.int().min(1).default(120),
  retries: z.int().min(0).default(0),
  idempotent: z.boolean().default(false),
  max_retries_per_gate: z.int().min(0).max(MAX_RETRIES_PER_GATE).default(0),
  tags: z.array(z.string().refine(nonBlank)).default([]),
  examples: z.array(exampleSchema).default([]),
  read_only: z.boolean().default(false),
  depends_on: z.array(dependencySchema).default([]),
  compatibility: z.enum(COMPATIBILITY_POLICIES).default('backward'),
  title: z
    .string()
    .refine((value) => nonBlank(value) && value.length <= 100 && !/[\r\n]/.test(value))
    .optional(),
  destructive: z.boolean().default(false),
  open_world: z.boolean().default(false),
  task_support: z.enum(['forbidden', 'optional', 'required']).optional(),
};

type FieldName = keyof typeof fieldSchemas;
const FIELD_NAMES = Object.keys(fieldSchemas) as FieldName[];
const definitionSchema = z.strictObject(fieldSchemas);

const REQUIRED_FIELDS = new Set<string>([
  'name',
  'version',
  'domain',
  'agent',
  'description',
  'phase',
  'tools_required',
  'input_schema',
  'output_schema',
]);

/** Result of checking definition.json: the definition when fully valid, and every field that is valid on its own. */
export interface DefinitionCheck {
  definition: SkillDefinition | null;
  /** Fields that passed their own rule (defaults applied), usable by later checks even when others failed. */
  validFields: Partial<SkillDefinition>;
}

/** Check the parsed content of definition.json against the contract, recording one issue per problem. */
export function checkDefinition(raw: unknown, directoryName: string, issues: IssueList): DefinitionCheck {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    issues.error(
      'definition',
      'definition.json',
      '',
      `definition.json must contain a JSON object, found ${describeValue(raw)}`,
      'Write the definition as { "name": ..., "version": ..., ... } (see the skill package contract).',
    );
    return { definition: null, validFields: {} };
  }
  const record = raw as Record<string, unknown>;
  const issuesBefore = issues.items.length;
  const parsed = definitionSchema.safeParse(record);
  for (const issue of parsed.success ? [] : parsed.error.issues) reportZodIssue(issue, record, issues);

  const validFields = parsed.success ? (parsed.data as SkillDefinition) : collectValidFields(record);
  checkCrossFieldRules(validFields, directoryName, issues);
  const definitionErrors = issues.items.slice(issuesBefore).filter((issue) => issue.severity === 'error');
  return { definition: parsed.success && definitionErrors.length === 0 ? (parsed.data as SkillDefinition) : null, validFields };
}

function collectValidFields(record: Record<string, unknown>): Partial<SkillDefinition> {
  const valid: Record<string, unknown> = {};
  for (const field of FIELD_NAMES) {
    const result = fieldSchemas[field].safeParse(record[field]);
    if (result.success) valid[field] = result.data;
  }
  return valid as Partial<SkillDefinition>;
}

function checkCrossFieldRules(fields: Partial<SkillDefinition>, directoryName: string, issues: IssueList): void {
  if (fields.name !== undefined && fields.name !== directoryName) {
    issues.error(
      'definition',
      'definition.json',
      '/name',
      `name '${fields.name}' does not match the package directory name '${directoryName}'`,
      `Rename the directory to '${fields.name}' or set "name": "${directoryName}"; the registry finds a skill by its directory.`,
    );
  }
  // Repeats the executor makes only for idempotent skills: asking for them on another is a warning.
  const repeats = [
    ['retries', fields.retries, 'the executor will not retry it', 'running the skill twice is safe'],
    ['max_retries_per_gate', fields.max_retries_per_gate, 'the executor will not ask again', 'running the handler twice is safe'],
  ] as const;
  for (const [field, value, effect, condition] of repeats) {
    if (value === undefined || value === 0 || fields.idempotent !== false) continue;
    issues.warning(
      'policy',
      'definition.json',
      `/${field}`,
      `${field} is ${value} but the skill is not idempotent: ${effect}`,
      `Set "idempotent": true if ${condition}, or set "${field}": 0.`,
    );
  }
  if (fields.read_only === true && fields.destructive === true) {
    issues.warning(
      'definition',
      'definition.json',
      '/destructive',
      'the skill is both read_only and destructive',
      'A read-only skill changes nothing: set "destructive": false, or "read_only": false.',
    );
  }
  fields.tags?.forEach((tag, index) => {
    if (fields.tags!.indexOf(tag) !== index) {
      issues.warning(
        'definition',
        'definition.json',
        `/tags/${index}`,
        `tag '${tag}' is listed more than once`,
        'Remove the duplicate tag.',
      );
    }
  });
  fields.depends_on?.forEach((dependency, index) => {
    if (dependency.name === fields.name) {
      issues.error(
        'definition',
        'definition.json',
        `/depends_on/${index}/name`,
        `the skill depends on itself`,
        'Remove this entry; a skill cannot depend on itself.',
      );
    } else if (fields.depends_on!.findIndex((other) => other.name === dependency.name) !== index) {
      issues.error(
        'definition',
        'definition.json',
        `/depends_on/${index}/name`,
        `'${dependency.name}' is listed more than once in depends_on`,
        'Declare each dependency once, with one range (ranges can be combined: ">=1.2 <3").',
      );
    }
  });
  if (fields.examples !== undefined) checkTwinFixtureRules(fields.examples, issues);
  fields.tools_required?.forEach((tool, index) => {
    if (fields.tools_required!.findIndex((other) => other.tool_id === tool.tool_id) !== index) {
      issues.warning(
        'definition',
        'definition.json',
        `/tools_required/${index}/tool_id`,
        `tool '${tool.tool_id}' is listed more than once in tools_required`,
        'Declare each tool once.',
      );
    }
  });
}

function reportZodIssue(issue: z.core.$ZodIssue, record: Record<string, unknown>, issues: IssueList): void {
  const path = issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment));
  if (issue.code === 'unrecognized_keys') {
    for (const key of issue.keys) reportUnknownField([...path, key], issues);
    return;
  }
  const pointer = toJsonPointer(path);
  const fieldLabel = formatFieldPath(path);
  const expectation = EXPECTATIONS[path.map((segment) => (typeof segment === 'number' ? '*' : segment)).join('.')] ?? issue.message;
  const value = valueAt(record, path);
  if (value === undefined) {
    const requiredHere = path.length === 1 ? REQUIRED_FIELDS.has(String(path[0])) : true;
    if (requiredHere) {
      issues.error(
        'definition',
        'definition.json',
        pointer,
        `required field '${fieldLabel}' is missing`,
        `Add "${String(path[path.length - 1])}": ${expectation}.`,
      );
      return;
    }
  }
  issues.error(
    'definition',
    'definition.json',
    pointer,
    `field '${fieldLabel}' must be ${expectation}; found ${describeValue(value)}`,
    hintFor(path, value, expectation),
  );
}

function reportUnknownField(path: PropertyKey[], issues: IssueList): void {
  const key = String(path[path.length - 1]);
  const parentKeys = path.length === 1 ? FIELD_NAMES : allowedKeysOf(path);
  const suggestion = closest(key, parentKeys);
  issues.error(
    'definition',
    'definition.json',
    toJsonPointer(path),
    `unknown field '${formatFieldPath(path)}'`,
    (suggestion ? `Did you mean '${suggestion}'? ` : '') + `Allowed fields here: ${parentKeys.join(', ')}.`,
  );
}

function allowedKeysOf(path: PropertyKey[]): string[] {
  if (path[0] === 'tools_required') return Object.keys(toolRefSchema.shape);
  if (path[0] === 'examples' && path[2] === 'twin') {
    return Object.keys((path.length > 4 ? twinWorkProductSchema : twinFixtureSchema).shape);
  }
  if (path[0] === 'examples') return Object.keys(exampleSchema.shape);
  if (path[0] === 'depends_on') return Object.keys(dependencySchema.shape);
  return [];
}

function valueAt(record: Record<string, unknown>, path: PropertyKey[]): unknown {
  let current: unknown = record;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}
