/**
 * Workflows of an Agent Skills package (seed 004: `metadata.dcc-mcp.workflows`, `workflows/*.workflow.yaml`): an
 * ordered chain of the package's own script tools, run as one execution. Each step's arguments are written as
 * JSON with `{{ ... }}` references to the workflow's input and to earlier steps' outputs, in dcc-mcp-core's
 * spelling: `{{inputs.scene}}`, `{{steps.create.output.name}}`, `{{steps.list.output.meshes[0]}}`.
 */

/** One step as stored: the package tool it runs and its argument template. */
export interface StoredWorkflowStep {
  /** Unique in the workflow; later steps refer to its output by it. */
  id: string;
  /** The package's tool, by its short name (`create_sphere`). */
  tool: string;
  /** JSON whose strings may hold references; rendered against the input and earlier outputs before the step runs. */
  args: Record<string, unknown>;
}

/** A workflow as stored with its version (`skill_versions.workflows`). */
export interface StoredWorkflow {
  /** snake_case name inside the skill; an execution names it as `tool`, like a script tool. */
  name: string;
  /** `<skill>__<workflow>`. */
  qualified_name: string;
  description: string;
  /** JSON Schema of the execution's input, built from the workflow's `inputs`. */
  input_schema: Record<string, unknown>;
  steps: StoredWorkflowStep[];
  /** The whole run's budget: declared, or the sum of its steps' tool timeouts. */
  timeout_seconds: number;
  /** Every step's tool is idempotent (a workflow is retried only then, and only when it declares retries). */
  idempotent: boolean;
  retries: number;
  /** Why it cannot run on this registry's executors (a step's tool has no runnable script); null when it can. */
  not_executable_reason: string | null;
}

/** A `{{ ... }}` reference: where it points, as path segments after its root. */
export interface WorkflowReference {
  /** The text between the braces, trimmed (for messages). */
  expression: string;
  root: 'inputs' | 'steps';
  /** For `steps`: the step id; for `inputs`: the input name. */
  name: string;
  /** Keys and indexes below `inputs.<name>` or `steps.<id>.output`. */
  path: (string | number)[];
}

const TEMPLATE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE_TEMPLATE = /^\s*\{\{\s*([^{}]*?)\s*\}\}\s*$/;
const SEGMENT = /^(?:\.([A-Za-z0-9_-]+)|\[(\d+)\])/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*/;

/** Parses one reference; a string explains what is wrong with it. */
export function parseReference(expression: string): WorkflowReference | string {
  const root = IDENTIFIER.exec(expression)?.[0];
  if (root !== 'inputs' && root !== 'steps') {
    return `'{{${expression}}}' must start with inputs.<name> or steps.<id>.output`;
  }
  let rest = expression.slice(root.length);
  const segments: (string | number)[] = [];
  while (rest.length > 0) {
    const match = SEGMENT.exec(rest);
    if (!match) return `'{{${expression}}}' is not a path of .key and [index] parts`;
    segments.push(match[1] !== undefined ? match[1] : Number(match[2]));
    rest = rest.slice(match[0].length);
  }
  const [name, ...below] = segments;
  if (typeof name !== 'string') return `'{{${expression}}}' names no ${root === 'inputs' ? 'input' : 'step'}`;
  if (root === 'inputs') return { expression, root, name, path: below };
  if (below[0] !== 'output') return `'{{${expression}}}' must continue with .output: steps.${name}.output...`;
  return { expression, root, name, path: below.slice(1) };
}

/** Every reference written in a step's argument template (parsed, or the problem with it). */
export function referencesIn(template: unknown): (WorkflowReference | string)[] {
  if (typeof template === 'string') return [...template.matchAll(TEMPLATE)].map((match) => parseReference(match[1] as string));
  if (Array.isArray(template)) return template.flatMap(referencesIn);
  if (template !== null && typeof template === 'object') return Object.values(template).flatMap(referencesIn);
  return [];
}

/** What a step's arguments are rendered against. */
export interface WorkflowScope {
  inputs: Record<string, unknown>;
  /** Outputs of the steps run so far, by step id. */
  outputs: Record<string, Record<string, unknown>>;
}

/** A reference that does not resolve when the step is about to run (its message names it). */
export class WorkflowReferenceUnresolved extends Error {
  constructor(readonly expression: string) {
    super(`'{{${expression}}}' does not resolve: the input or the earlier step's output has no such value`);
  }
}

/**
 * The step's arguments: a string that is one reference becomes the referenced value (any JSON), a reference inside
 * longer text is replaced by its text (JSON for a non-string); objects and arrays are rendered member by member.
 */
export function renderArguments(template: Record<string, unknown>, scope: WorkflowScope): Record<string, unknown> {
  return renderValue(template, scope) as Record<string, unknown>;
}

function renderValue(template: unknown, scope: WorkflowScope): unknown {
  if (typeof template === 'string') {
    const whole = WHOLE_TEMPLATE.exec(template);
    if (whole) return resolve(whole[1] as string, scope);
    return template.replace(TEMPLATE, (_, expression: string) => {
      const value = resolve(expression, scope);
      return typeof value === 'string' ? value : JSON.stringify(value);
    });
  }
  if (Array.isArray(template)) return template.map((item) => renderValue(item, scope));
  if (template !== null && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([key, value]) => [key, renderValue(value, scope)]));
  }
  return template;
}

function resolve(expression: string, scope: WorkflowScope): unknown {
  const reference = parseReference(expression);
  if (typeof reference === 'string') throw new WorkflowReferenceUnresolved(expression);
  let value: unknown = reference.root === 'inputs' ? scope.inputs[reference.name] : scope.outputs[reference.name];
  for (const segment of reference.path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, segment)) throw new WorkflowReferenceUnresolved(expression);
    value = (value as Record<string | number, unknown>)[segment];
  }
  if (value === undefined) throw new WorkflowReferenceUnresolved(expression);
  return value;
}

/** The workflow's input with the `default` of every input the caller left out (the schema marks those optional). */
export function workflowInputs(workflow: Pick<StoredWorkflow, 'input_schema'>, input: Record<string, unknown>): Record<string, unknown> {
  const properties = (workflow.input_schema.properties ?? {}) as Record<string, unknown>;
  const defaults = Object.entries(properties).flatMap(([name, schema]) =>
    schema !== null && typeof schema === 'object' && Object.hasOwn(schema, 'default') && !Object.hasOwn(input, name)
      ? [[name, (schema as { default: unknown }).default] as const]
      : [],
  );
  return { ...Object.fromEntries(defaults), ...input };
}
