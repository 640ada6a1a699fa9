import { referencesIn, type StoredWorkflowStep } from '#contracts/index.js';
import { describeValue } from '#skill-loader/describe.js';
import type { IssueList } from '#skill-loader/issues.js';
import type { ScriptTool } from './types.js';
import { isMapping } from './yaml-text.js';

const STEP_KEYS = ['id', 'tool', 'args', 'description'];
/** dcc-mcp-core step kinds and policies this registry does not run: named in the error rather than "unknown key". */
const UNSUPPORTED_STEP_KEYS = [
  'kind',
  'tool_remote',
  'steps',
  'items',
  'branches',
  'timeout_secs',
  'retry',
  'idempotency_key',
  'reuse_result',
];
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const MAX_STEPS = 50;

/** Where a finding is: the file, the JSON pointer and a label naming the workflow (and step). */
export interface Site {
  file: string;
  at: string;
  label: string;
}

/**
 * A workflow's `steps`, in order, each checked against the package's tools: the tool is the package's own, every
 * reference names a declared input or a step that runs before, and the arguments cover what the tool requires.
 * Null when any step is refused (each refusal is an issue).
 */
export function checkSteps(
  value: unknown,
  site: Site,
  inputSchema: Record<string, unknown> | null,
  tools: readonly ScriptTool[],
  issues: IssueList,
): StoredWorkflowStep[] | null {
  const { file, at, label } = site;
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_STEPS) {
    issues.error(
      'definition',
      file,
      at,
      `${label}: steps must be a list of 1 to ${MAX_STEPS} steps; found ${describeValue(value)}`,
      'Write steps: [{ id: create, tool: create_sphere, args: { ... } }].',
    );
    return null;
  }
  const inputs = Object.keys((inputSchema?.properties as Record<string, unknown> | undefined) ?? {});
  const steps: StoredWorkflowStep[] = [];
  // Every id written so far, also of steps refused for another reason (no second error for referring to them).
  const seen: SeenStep[] = [];
  let ok = true;
  value.forEach((raw, index) => {
    const step = checkStep(raw, { file, at: `${at}/${index}`, label }, seen, inputs, tools, issues);
    if (step === null) ok = false;
    else steps.push(step);
  });
  return ok ? steps : null;
}

/** A step id met so far, with its tool when the step was accepted. */
interface SeenStep {
  id: string;
  tool: string | null;
}

function checkStep(
  raw: unknown,
  site: Site,
  earlier: SeenStep[],
  inputs: readonly string[],
  tools: readonly ScriptTool[],
  issues: IssueList,
): StoredWorkflowStep | null {
  const { file, at, label } = site;
  if (!isMapping(raw) || typeof raw.id !== 'string' || !IDENTIFIER.test(raw.id)) {
    issues.error(
      'definition',
      file,
      at,
      `${label}: every step needs an id of letters, digits, _ and -; found ${describeValue(isMapping(raw) ? raw.id : raw)}`,
      'Write "- id: create".',
    );
    return null;
  }
  const id = raw.id;
  const where = `${label}, step '${id}'`;
  if (earlier.some((step) => step.id === id)) {
    issues.error('definition', file, `${at}/id`, `${where}: the id is used by an earlier step`, 'Give every step its own id.');
    return null;
  }
  const seen: SeenStep = { id, tool: null };
  const checked = checkStepBody(raw, { file, at, label: where }, earlier, inputs, tools, issues);
  earlier.push(checked ? { ...seen, tool: checked.tool } : seen);
  return checked ? { id, ...checked } : null;
}

function checkStepBody(
  raw: Record<string, unknown>,
  site: Site,
  earlier: readonly SeenStep[],
  inputs: readonly string[],
  tools: readonly ScriptTool[],
  issues: IssueList,
): Omit<StoredWorkflowStep, 'id'> | null {
  const { file, at, label: where } = site;
  const unsupported = Object.keys(raw).filter((key) => UNSUPPORTED_STEP_KEYS.includes(key));
  if (unsupported.length > 0) {
    issues.error(
      'definition',
      file,
      `${at}/${unsupported[0]}`,
      `${where}: ${unsupported.join(', ')} ${unsupported.length === 1 ? 'is' : 'are'} not supported here: a step runs one tool of the package`,
      'Write each step as { id, tool, args } in order; control flow (foreach, parallel, branch, approve) and step policies are not run.',
    );
    return null;
  }
  for (const key of Object.keys(raw)) {
    if (!STEP_KEYS.includes(key))
      issues.warning(
        'definition',
        file,
        `${at}/${key}`,
        `${where}: key '${key}' is not read (ignored)`,
        `Known keys: ${STEP_KEYS.join(', ')}.`,
      );
  }
  const toolName = typeof raw.tool === 'string' ? raw.tool : '';
  const tool = tools.find((candidate) => candidate.name === toolName || candidate.qualifiedName === toolName);
  if (!tool) {
    issues.error(
      'definition',
      file,
      `${at}/tool`,
      typeof raw.tool === 'string'
        ? `${where}: tool '${raw.tool}' is not a tool of this package`
        : `${where}: tool must name a tool of this package; found ${describeValue(raw.tool)}`,
      tools.length > 0
        ? `A workflow chains this package's tools: ${tools.map((candidate) => candidate.name).join(', ')}.`
        : 'The package declares no tools to chain.',
    );
    return null;
  }
  const args = raw.args ?? {};
  if (!isMapping(args)) {
    issues.error(
      'definition',
      file,
      `${at}/args`,
      `${where}: args must be a mapping of the tool's arguments; found ${describeValue(args)}`,
      'Write args: { radius: "{{inputs.radius}}" }.',
    );
    return null;
  }
  return checkMapping(args, { file, at: `${at}/args`, label: where }, earlier, inputs, tool, tools, issues)
    ? { tool: tool.name, args }
    : null;
}

/** The references resolve to declared inputs and earlier steps, and the arguments cover what the tool requires. */
function checkMapping(
  args: Record<string, unknown>,
  site: Site,
  earlier: readonly SeenStep[],
  inputs: readonly string[],
  tool: ScriptTool,
  tools: readonly ScriptTool[],
  issues: IssueList,
): boolean {
  const { file, at, label } = site;
  let ok = true;
  const fail = (message: string, hint: string) => {
    issues.error('definition', file, at, `${label}: ${message}`, hint);
    ok = false;
  };
  for (const reference of referencesIn(args)) {
    if (typeof reference === 'string') {
      fail(reference, 'Write {{inputs.<name>}} or {{steps.<earlier step id>.output.<key>}}.');
    } else if (reference.root === 'inputs' && !inputs.includes(reference.name)) {
      fail(
        `'{{${reference.expression}}}' names input '${reference.name}', which inputs does not declare`,
        inputs.length ? `Declared inputs: ${inputs.join(', ')}.` : 'Declare it under inputs:.',
      );
    } else if (reference.root === 'steps') {
      const source = earlier.find((step) => step.id === reference.name);
      if (!source) {
        fail(
          `'{{${reference.expression}}}' names step '${reference.name}', which does not run before this one`,
          earlier.length ? `Earlier steps: ${earlier.map((step) => step.id).join(', ')}.` : 'The first step can use only inputs.',
        );
        continue;
      }
      const key = reference.path[0];
      if (source.tool === null) continue;
      const output = tools.find((candidate) => candidate.name === source.tool)?.outputSchema;
      const declared = output?.properties as Record<string, unknown> | undefined;
      if (typeof key === 'string' && declared && output?.additionalProperties === false && !Object.hasOwn(declared, key)) {
        fail(
          `'{{${reference.expression}}}' reads '${key}', which the output_schema of tool '${source.tool}' does not have`,
          `Its output has: ${Object.keys(declared).join(', ')}.`,
        );
      }
    }
  }
  const schema = tool.inputSchema;
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const missing = (Array.isArray(schema.required) ? (schema.required as unknown[]) : []).filter(
    (key) => typeof key === 'string' && !Object.hasOwn(args, key),
  );
  if (missing.length > 0)
    fail(
      `tool '${tool.name}' requires ${missing.join(', ')}, which args does not give`,
      `Map them, e.g. ${String(missing[0])}: "{{inputs.${String(missing[0])}}}".`,
    );
  const unknown = schema.additionalProperties === false ? Object.keys(args).filter((key) => !Object.hasOwn(properties, key)) : [];
  if (unknown.length > 0)
    fail(`tool '${tool.name}' takes no argument ${unknown.join(', ')}`, `Its arguments: ${Object.keys(properties).join(', ') || 'none'}.`);
  return ok;
}
