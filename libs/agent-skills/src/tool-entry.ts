import { closest, EXPECTATIONS, hintFor } from '#skill-loader/definition-messages.js';
import { describeValue } from '#skill-loader/describe.js';
import type { IssueList } from '#skill-loader/issues.js';
import { stringList } from './dcc-mcp.js';
import { checkJsonSchema, validateAnyObject, type SchemaValidator } from './json-schemas.js';
import { TOOL_NAME_PATTERN } from './names.js';
import { describePathProblem, resolvePackagePath } from './package-paths.js';
import { checkToolExamples } from './tool-examples.js';
import { entryPointer, readNextTools, readToolFlags, SHORTHAND_HINTS, type EntrySite } from './tool-flags.js';
import type { ScriptTool } from './types.js';
import { isMapping } from './yaml-text.js';

/**
 * Bounds of definition.json (libs/skill-loader/src/definition.ts, not exported as constants there):
 * timeout_seconds is an integer >= 1 defaulting to 120, retries an integer >= 0 defaulting to 0, and retries of a
 * tool that is not idempotent are a policy warning (the executor does not retry it).
 */
export const DEFAULT_TIMEOUT_SECONDS = 120;
const MIN_TIMEOUT_SECONDS = 1;
export const DEFAULT_RETRIES = 0;
const MIN_RETRIES = 0;
/** The input schema of a tool that declares none (seed 004: manifest-first discovery falls back to it). */
export const PERMISSIVE_INPUT_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({ type: 'object' });

/** Keys of a tools.yaml entry this registry reads (seed 004's ToolDeclaration plus the definition.json policies). */
const TOOL_KEYS = [
  'name',
  'description',
  'input_schema',
  'inputSchema',
  'output_schema',
  'outputSchema',
  'read_only',
  'destructive',
  'idempotent',
  'search_aliases',
  'next-tools',
  'source_file',
  'annotations',
  'timeout_seconds',
  'retries',
  'examples',
  'group',
  'defer-loading',
  'defer_loading',
  'task_support',
  ...Object.keys(SHORTHAND_HINTS),
];

/** A tool entry after its own checks, before its script is looked up. */
export type ToolDraft = Omit<ScriptTool, 'qualifiedName' | 'scriptFile' | 'script' | 'notExecutableReason'> & {
  index: number;
  /** The resolved `source_file`; null when none was written or it did not resolve (see sourceFileRefused). */
  sourceFile: string | null;
  /** `source_file` was written but refused: no fallback lookup then, the author named a file. */
  sourceFileRefused: boolean;
};

/** Check one entry of tools.yaml; null when it has no usable name (the tool cannot be listed at all). */
export async function checkToolEntry(
  raw: unknown,
  index: number,
  file: string,
  packageDir: string,
  issues: IssueList,
): Promise<ToolDraft | null> {
  const site: EntrySite = { file, index, label: `tools[${index}]` };
  if (!isMapping(raw)) {
    issues.error(
      'definition',
      file,
      entryPointer(site),
      `tools[${index}] must be a mapping; found ${describeValue(raw)}`,
      'Write each tool as "- name: <tool_name>" followed by its keys.',
    );
    return null;
  }
  const name = checkName(raw.name, site, issues);
  if (name === null) return null;
  site.label = `tool '${name}'`;
  for (const key of Object.keys(raw)) {
    if (TOOL_KEYS.includes(key)) continue;
    const suggestion = closest(key, TOOL_KEYS);
    issues.warning(
      'definition',
      file,
      entryPointer(site, key),
      `${site.label}: key '${key}' is not read by this registry (ignored)`,
      suggestion ? `Did you mean '${suggestion}'?` : `Known keys: ${TOOL_KEYS.join(', ')}.`,
    );
  }
  const flags = readToolFlags(raw, site, issues);
  const inputSchema = readSchema(raw, 'input', site, issues);
  const outputSchema = readSchema(raw, 'output', site, issues);
  const retries = readInteger(raw, 'retries', MIN_RETRIES, DEFAULT_RETRIES, site, issues);
  if (retries > 0 && !flags.idempotent) {
    issues.warning(
      'policy',
      file,
      entryPointer(site, 'retries'),
      `retries is ${retries} but ${site.label} is not idempotent: the executor will not retry it`,
      'Set "idempotent: true" if running the tool twice is safe, or set "retries: 0".',
    );
  }
  const source = await readSourceFile(raw.source_file, site, packageDir, issues);
  return {
    index,
    name,
    description: readDescription(raw.description, site, issues),
    inputSchema: inputSchema.schema ?? { ...PERMISSIVE_INPUT_SCHEMA },
    outputSchema: outputSchema.schema,
    ...flags,
    timeoutSeconds: readInteger(raw, 'timeout_seconds', MIN_TIMEOUT_SECONDS, DEFAULT_TIMEOUT_SECONDS, site, issues),
    retries,
    searchAliases: stringList(raw.search_aliases, `${site.label}: search_aliases`, entryPointer(site, 'search_aliases'), issues, file),
    nextTools: readNextTools(raw['next-tools'], site, issues),
    examples: checkToolExamples(raw.examples, site, { input: inputSchema.validate, output: outputSchema.validate }, issues),
    group: readGroup(raw.group, site, issues),
    deferLoading: readBoolean(raw, ['defer-loading', 'defer_loading'], site, issues),
    taskSupport: readTaskSupport(raw.task_support, site, issues),
    ...source,
  };
}

function checkName(value: unknown, site: EntrySite, issues: IssueList): string | null {
  if (typeof value !== 'string' || value === '') {
    issues.error(
      'definition',
      site.file,
      entryPointer(site, 'name'),
      value === undefined
        ? `tools[${site.index}] has no name`
        : `tools[${site.index}].name must be a string; found ${describeValue(value)}`,
      'Give every tool a snake_case name unique in the skill, e.g. "name: create_sphere".',
    );
    return null;
  }
  if (!TOOL_NAME_PATTERN.test(value)) {
    const snake = value
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^[^a-z]+|_+$/g, '');
    issues.error(
      'definition',
      site.file,
      entryPointer(site, 'name'),
      `tool name '${value}' must be snake_case matching ${TOOL_NAME_PATTERN.source}`,
      snake ? `Use "name: ${snake}".` : 'Use a snake_case name starting with a letter.',
    );
    return null;
  }
  return value;
}

function readDescription(value: unknown, site: EntrySite, issues: IssueList): string {
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (value === undefined || value === null || value === '') {
    issues.warning(
      'definition',
      site.file,
      entryPointer(site, 'description'),
      `${site.label} has no description`,
      'Describe what the tool does and when to use it: agents choose tools by it.',
    );
  } else {
    issues.error(
      'definition',
      site.file,
      entryPointer(site, 'description'),
      `${site.label}: description must be a string; found ${describeValue(value)}`,
      'Write the description as text.',
    );
  }
  return '';
}

function readSchema(
  raw: Record<string, unknown>,
  role: 'input' | 'output',
  site: EntrySite,
  issues: IssueList,
): { schema: Record<string, unknown> | null; validate: SchemaValidator | null } {
  const snake = `${role}_schema`;
  const camel = `${role}Schema`;
  if (raw[snake] !== undefined && raw[camel] !== undefined) {
    issues.warning(
      'definition',
      site.file,
      entryPointer(site, camel),
      `${site.label} declares both ${snake} and ${camel}; ${snake} is used`,
      `Keep one of them.`,
    );
  }
  const key = raw[snake] !== undefined ? snake : camel;
  const schema = raw[key];
  if (schema === undefined || schema === null) {
    // No declared input schema: the permissive { type: object } still checks that example inputs are objects.
    return { schema: null, validate: role === 'input' ? validateAnyObject : null };
  }
  const validate = checkJsonSchema(
    schema,
    { file: site.file, pointer: entryPointer(site, key), label: `${key} of ${site.label}`, role },
    issues,
  );
  return { schema: validate ? (schema as Record<string, unknown>) : null, validate };
}

function readInteger(
  raw: Record<string, unknown>,
  field: 'timeout_seconds' | 'retries',
  min: number,
  fallback: number,
  site: EntrySite,
  issues: IssueList,
): number {
  const value = raw[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'number' && Number.isInteger(value) && value >= min) return value;
  const expectation = EXPECTATIONS[field];
  issues.error(
    'definition',
    site.file,
    entryPointer(site, field),
    `${site.label}: ${field} must be ${expectation}; found ${describeValue(value)}`,
    hintFor([field], value, expectation),
  );
  return fallback;
}

/** A boolean under the first of `keys` present (seed 004 accepts both spellings); false when absent. */
function readBoolean(raw: Record<string, unknown>, keys: string[], site: EntrySite, issues: IssueList): boolean {
  const key = keys.find((candidate) => raw[candidate] !== undefined);
  if (key === undefined) return false;
  if (typeof raw[key] === 'boolean') return raw[key];
  issues.error(
    'definition',
    site.file,
    entryPointer(site, key),
    `${site.label}: ${key} must be a boolean; found ${describeValue(raw[key])}`,
    'Write true or false without quotes.',
  );
  return false;
}

const TASK_SUPPORT = ['forbidden', 'optional', 'required'] as const;

function readTaskSupport(value: unknown, site: EntrySite, issues: IssueList): (typeof TASK_SUPPORT)[number] | null {
  if (value === undefined || value === null) return null;
  const found = TASK_SUPPORT.find((candidate) => candidate === value);
  if (found) return found;
  issues.error(
    'definition',
    site.file,
    entryPointer(site, 'task_support'),
    `${site.label}: task_support must be one of ${TASK_SUPPORT.join(', ')}; found ${describeValue(value)}`,
    'Leave it out for the default (optional above 30 s, else forbidden), or write one of the three.',
  );
  return null;
}

function readGroup(value: unknown, site: EntrySite, issues: IssueList): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' && value.trim() !== '') return value;
  issues.error(
    'definition',
    site.file,
    entryPointer(site, 'group'),
    `${site.label}: group must be a group name; found ${describeValue(value)}`,
    'Name a group declared under groups:.',
  );
  return null;
}

async function readSourceFile(
  value: unknown,
  site: EntrySite,
  packageDir: string,
  issues: IssueList,
): Promise<{ sourceFile: string | null; sourceFileRefused: boolean }> {
  if (value === undefined || value === null) return { sourceFile: null, sourceFileRefused: false };
  const pointer = entryPointer(site, 'source_file');
  if (typeof value !== 'string' || value.trim() === '') {
    issues.error(
      'files',
      site.file,
      pointer,
      `${site.label}: source_file must be a relative path; found ${describeValue(value)}`,
      'Write source_file: scripts/<tool_name>.py.',
    );
    return { sourceFile: null, sourceFileRefused: true };
  }
  const resolved = await resolvePackagePath(packageDir, value);
  if (!resolved.ok) {
    const { message, hint } = describePathProblem(`${site.label}: source_file`, resolved);
    issues.error(resolved.problem === 'missing' ? 'files' : 'policy', site.file, pointer, message, hint);
    return { sourceFile: null, sourceFileRefused: true };
  }
  if (resolved.kind !== 'file') {
    issues.error(
      'files',
      site.file,
      pointer,
      `${site.label}: source_file '${value}' is a directory`,
      'Point source_file at the script file.',
    );
    return { sourceFile: null, sourceFileRefused: true };
  }
  return { sourceFile: resolved.path, sourceFileRefused: false };
}
