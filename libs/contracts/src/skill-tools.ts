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
}

/** A version's package format. */
export type SkillFormat = 'typescript' | 'agent-skills';

/** What an execution runs under: a TypeScript handler, or one script tool. */
export interface RunContract {
  tool: StoredScriptTool | null;
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
 * one) runs under; null when the version has no such tool (or, being an Agent Skills version, is
 * asked to run without naming one). A TypeScript version's contract is its own.
 */
export function runContractOf(
  version: {
    format: SkillFormat;
    tools: readonly StoredScriptTool[];
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
    return { tool: null, idempotent, retries, timeoutSeconds, maxRetriesPerGate, inputSchema, outputSchema };
  }
  const found = version.tools.find((candidate) => candidate.name === tool || candidate.qualified_name === tool);
  if (!found) return null;
  return {
    tool: found,
    idempotent: found.idempotent,
    retries: found.retries,
    timeoutSeconds: found.timeout_seconds,
    maxRetriesPerGate: 0,
    inputSchema: found.input_schema,
    outputSchema: found.output_schema,
  };
}
