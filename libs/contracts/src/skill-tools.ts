import type { StoredWorkflow } from './workflows.js';

/**
 * One tool of a skill version as stored (`skill_versions.tools`) and served: the contract an
 * execution of it runs under. A TypeScript package has no entries (its one handler's contract is the
 * version's own fields); an Agent Skills package has one per tools.yaml entry or script.
 */
export interface StoredScriptTool {
  /** snake_case name inside the skill (`create_sphere`). */
  name: string;
  /** `<skill>__<tool>` (seed 004), the MCP tool name. */
  qualified_name: string;
  description: string;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown> | null;
  read_only: boolean;
  destructive: boolean;
  idempotent: boolean;
  timeout_seconds: number;
  retries: number;
  search_aliases: string[];
  next_tools: { on_success: string[]; on_failure: string[] };
  annotations: Record<string, unknown>;
  examples: { input: Record<string, unknown>; output?: Record<string, unknown>; description?: string }[];
  /** The script that runs it (package-relative) and its interpreter; null when not executable here. */
  script: { path: string; interpreter: 'python3' | 'bash' | 'node' } | null;
  not_executable_reason: string | null;
  /** Its tool group (seed 004 "Tool Groups"); absent or null when ungrouped (versions stored before groups: absent). */
  group?: string | null;
  /** seed 004's `defer-loading`: a discovery-oriented declaration, shown as `_meta["dcc.deferred_hint"]`. */
  defer_loading?: boolean;
  /** MCP tasks: as declared in tools.yaml; absent or null means the default (taskSupportOf). */
  task_support?: TaskSupport | null;
}

/** MCP `execution.taskSupport` of a tool: whether a call may (optional), must (required) or must not (forbidden) be a task. */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** Above this timeout a tool's calls may be tasks unless it says otherwise (issue 26 §2). */
const TASK_OPTIONAL_ABOVE_SECONDS = 30;

/** The one rule for a tool's task support: as declared, else `optional` for timeouts over 30 s and `forbidden` below. */
export function taskSupportOf(declared: TaskSupport | null | undefined, timeoutSeconds: number): TaskSupport {
  return declared ?? (timeoutSeconds > TASK_OPTIONAL_ABOVE_SECONDS ? 'optional' : 'forbidden');
}

/** A tool group of an Agent Skills package (seed 004): tools listed together once active. */
export interface StoredToolGroup {
  name: string;
  description: string;
  /** Active as soon as the skill is loaded; otherwise dormant until activated. */
  default_active: boolean;
  /** Tool names (inside the skill) of the group. */
  tools: string[];
}

/**
 * How a version is offered as MCP tools beyond its schemas (`skill_versions.exposure`): a TypeScript
 * skill's annotations and task support from definition.json, an Agent Skills package's tool groups.
 */
export interface VersionExposure {
  title?: string;
  destructive?: boolean;
  open_world?: boolean;
  task_support?: TaskSupport;
  groups?: StoredToolGroup[];
}

/** A version's package format. */
export type SkillFormat = 'typescript' | 'agent-skills';

/** What an execution runs under: a TypeScript handler, one script tool, or a workflow of the package's tools. */
export interface RunContract {
  tool: StoredScriptTool | null;
  /** A workflow (then `tool` is null): its steps run the package's script tools in order, in one execution. */
  workflow: StoredWorkflow | null;
  idempotent: boolean;
  retries: number;
  timeoutSeconds: number;
  /**
   * Re-asks of a result that fails output validation, within one attempt (seed 001 §2.3); the executor
   * asks again only when `idempotent`, and never past `timeoutSeconds`.
   */
  maxRetriesPerGate: number;
  inputSchema: Record<string, unknown> | null;
  outputSchema: Record<string, unknown> | null;
}

/**
 * The one place that says which contract an execution of `version` (with `tool`, when it names
 * one) runs under; null when the version has no such tool or workflow (or, being an Agent Skills
 * version, is asked to run without naming one). A TypeScript version's contract is its own. `tool`
 * names a script tool first, then a workflow (the intake keeps their names apart).
 */
export function runContractOf(
  version: {
    format: SkillFormat;
    tools: readonly StoredScriptTool[];
    workflows?: readonly StoredWorkflow[];
    idempotent: boolean;
    retries: number;
    timeoutSeconds: number;
    maxRetriesPerGate: number;
    inputSchema: Record<string, unknown> | null;
    outputSchema: Record<string, unknown> | null;
  },
  tool: string | null | undefined,
): RunContract | null {
  if (tool === null || tool === undefined) {
    // An Agent Skills version runs only named tools; one without tools is instructions only.
    if (version.format === 'agent-skills' || version.tools.length > 0) return null;
    const { idempotent, retries, timeoutSeconds, maxRetriesPerGate, inputSchema, outputSchema } = version;
    return { tool: null, workflow: null, idempotent, retries, timeoutSeconds, maxRetriesPerGate, inputSchema, outputSchema };
  }
  const found = version.tools.find((candidate) => candidate.name === tool || candidate.qualified_name === tool);
  if (!found) {
    const workflow = version.workflows?.find((candidate) => candidate.name === tool || candidate.qualified_name === tool);
    if (!workflow) return null;
    return {
      tool: null,
      workflow,
      idempotent: workflow.idempotent,
      retries: workflow.retries,
      timeoutSeconds: workflow.timeout_seconds,
      maxRetriesPerGate: 0,
      inputSchema: workflow.input_schema,
      // Each step's output is checked against its tool's schema as the workflow runs; the whole has none declared.
      outputSchema: null,
    };
  }
  return {
    tool: found,
    workflow: null,
    idempotent: found.idempotent,
    retries: found.retries,
    timeoutSeconds: found.timeout_seconds,
    maxRetriesPerGate: 0,
    inputSchema: found.input_schema,
    outputSchema: found.output_schema,
  };
}
