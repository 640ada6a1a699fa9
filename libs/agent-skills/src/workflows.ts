import type { StoredWorkflow } from '#contracts/index.js';
import { closest } from '#skill-loader/definition-messages.js';
import { describeValue } from '#skill-loader/describe.js';
import type { IssueList } from '#skill-loader/issues.js';
import { checkJsonSchema } from './json-schemas.js';
import { TOOL_NAME_PATTERN, qualifiedToolName } from './names.js';
import { readSidecarYaml, sidecarEntries } from './sidecar-files.js';
import { checkSteps, type Site } from './workflow-steps.js';
import type { ScriptTool } from './types.js';
import { isMapping } from './yaml-text.js';

const WORKFLOW_KEYS = ['name', 'description', 'inputs', 'steps', 'timeout_seconds', 'retries'];
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const MAX_WORKFLOWS = 50;

/**
 * The workflows of the files `metadata.dcc-mcp.workflows` names (seed 004's `workflows/*.workflow.yaml`, in
 * dcc-mcp-core's spelling): `name`, `description`, `inputs` (name → JSON Schema), and `steps`, each running one of
 * this package's tools with `args` mapped from the input and earlier steps' outputs (`{{inputs.x}}`,
 * `{{steps.<id>.output.y}}`). Checked here against the package's tools: an unknown tool, a reference to an
 * undeclared input or a later step, or arguments missing what the tool requires are errors.
 */
export async function readWorkflows(
  files: string[],
  packageDir: string,
  registryName: string,
  tools: readonly ScriptTool[],
  issues: IssueList,
): Promise<StoredWorkflow[]> {
  const workflows: StoredWorkflow[] = [];
  for (const file of files) {
    const document = await readSidecarYaml(packageDir, file, issues);
    for (const { entry, at } of sidecarEntries(document, 'workflows', file, issues)) {
      const workflow = checkWorkflow(entry, { file, at, label: 'workflow' }, registryName, tools, issues);
      if (workflow === null) continue;
      if (workflows.some((other) => other.name === workflow.name) || tools.some((tool) => tool.name === workflow.name)) {
        issues.error(
          'definition',
          file,
          `${at}/name`,
          `workflow name '${workflow.name}' is taken by another workflow or tool of the package`,
          'An execution names a tool or a workflow by one name: give the workflow its own.',
        );
        continue;
      }
      if (workflows.length === MAX_WORKFLOWS) {
        issues.error('policy', file, at, `more than ${MAX_WORKFLOWS} workflows`, `Keep at most ${MAX_WORKFLOWS} workflows in one package.`);
        return workflows;
      }
      workflows.push(workflow);
    }
  }
  return workflows;
}

function checkWorkflow(
  raw: unknown,
  site: Site,
  registryName: string,
  tools: readonly ScriptTool[],
  issues: IssueList,
): StoredWorkflow | null {
  const { file, at } = site;
  if (!isMapping(raw)) {
    issues.error(
      'definition',
      file,
      at,
      `a workflow must be a mapping; found ${describeValue(raw)}`,
      'Write name, description, inputs and steps.',
    );
    return null;
  }
  if (typeof raw.name !== 'string' || !TOOL_NAME_PATTERN.test(raw.name)) {
    issues.error(
      'definition',
      file,
      `${at}/name`,
      `workflow name must be snake_case matching ${TOOL_NAME_PATTERN.source}; found ${describeValue(raw.name)}`,
      'Name it like a tool, e.g. "name: vendor_intake": an execution names it as its tool.',
    );
    return null;
  }
  const name = raw.name;
  const label = `workflow '${name}'`;
  for (const key of Object.keys(raw)) {
    if (WORKFLOW_KEYS.includes(key)) continue;
    const suggestion = closest(key, WORKFLOW_KEYS);
    issues.warning(
      'definition',
      file,
      `${at}/${key}`,
      `${label}: key '${key}' is not read (ignored)`,
      suggestion ? `Did you mean '${suggestion}'?` : `Known keys: ${WORKFLOW_KEYS.join(', ')}.`,
    );
  }
  const inputSchema = checkInputs(raw.inputs, { file, at: `${at}/inputs`, label }, issues);
  const steps = checkSteps(raw.steps, { file, at: `${at}/steps`, label }, inputSchema, tools, issues);
  if (inputSchema === null || steps === null) return null;
  const stepTools = steps.map((step) => tools.find((tool) => tool.name === step.tool) as ScriptTool);
  const idempotent = stepTools.every((tool) => tool.idempotent);
  const timeoutSeconds = positiveInteger(
    raw.timeout_seconds,
    1,
    `${label}: timeout_seconds`,
    { file, at: `${at}/timeout_seconds`, label },
    issues,
  );
  const retries = positiveInteger(raw.retries, 0, `${label}: retries`, { file, at: `${at}/retries`, label }, issues) ?? 0;
  if (retries > 0 && !idempotent) {
    issues.warning(
      'policy',
      file,
      `${at}/retries`,
      `${label}: retries is ${retries} but not every step's tool is idempotent: the executor will not retry it`,
      'Retry only workflows whose every step is safe to run twice.',
    );
  }
  const blocked = steps.find((_, index) => (stepTools[index] as ScriptTool).script === null);
  const notExecutable = blocked
    ? `step '${blocked.id}' runs tool '${blocked.tool}', which is not executable here (${(stepTools[steps.indexOf(blocked)] as ScriptTool).notExecutableReason ?? 'no script'})`
    : null;
  if (notExecutable)
    issues.warning(
      'handler',
      file,
      at,
      `${label} is listed but cannot run here: ${notExecutable}`,
      'Give every step a tool with a .py, .sh or .js script.',
    );
  if (typeof raw.description !== 'string' || raw.description.trim() === '') {
    issues.warning(
      'definition',
      file,
      `${at}/description`,
      `${label} has no description`,
      'Say what the workflow does and when to run it.',
    );
  }
  return {
    name,
    qualified_name: qualifiedToolName(registryName, name),
    description: typeof raw.description === 'string' ? raw.description : '',
    input_schema: inputSchema,
    steps,
    timeout_seconds: timeoutSeconds ?? stepTools.reduce((sum, tool) => sum + tool.timeoutSeconds, 0),
    idempotent,
    retries,
    not_executable_reason: notExecutable,
  };
}

/** `inputs: { name: <JSON Schema>, ... }` as one object schema; an input with a `default` is optional. */
function checkInputs(value: unknown, site: Site, issues: IssueList): Record<string, unknown> | null {
  if (value === undefined || value === null) return { type: 'object', properties: {}, additionalProperties: false };
  if (!isMapping(value)) {
    issues.error(
      'schema',
      site.file,
      site.at,
      `${site.label}: inputs must map input names to JSON Schemas; found ${describeValue(value)}`,
      'Write inputs: { radius: { type: number } }.',
    );
    return null;
  }
  const bad = Object.keys(value).filter((key) => !IDENTIFIER.test(key));
  if (bad.length > 0) {
    issues.error(
      'schema',
      site.file,
      site.at,
      `${site.label}: input names ${bad.join(', ')} are not identifiers`,
      'Use letters, digits, _ and -.',
    );
    return null;
  }
  const required = Object.entries(value)
    .filter(([, schema]) => !(isMapping(schema) && Object.hasOwn(schema, 'default')))
    .map(([key]) => key);
  const schema = { type: 'object', properties: value, required, additionalProperties: false };
  return checkJsonSchema(schema, { file: site.file, pointer: site.at, label: `inputs of ${site.label}`, role: 'input' }, issues)
    ? schema
    : null;
}

function positiveInteger(value: unknown, min: number, field: string, site: Site, issues: IssueList): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && Number.isInteger(value) && value >= min) return value;
  issues.error(
    'definition',
    site.file,
    site.at,
    `${field} must be an integer ≥ ${min}; found ${describeValue(value)}`,
    `Write an integer of at least ${min}.`,
  );
  return null;
}
