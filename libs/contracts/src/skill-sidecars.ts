/**
 * What an Agent Skills package's sidecar files give its version once read (seed 004's sibling-file rule:
 * `metadata.dcc-mcp.prompts`, `.resources`, `.runtimes`), as stored with the version and served.
 */

/**
 * Seed 004's trust scope of a skill, by where it came from: `admin` (published with an admin token), `system`
 * (found under SKILL_PATHS, the operator's catalog), `user` (published with a publisher token); `repo` (the seed's
 * project-local skills) is not assigned here. Search breaks ties admin > system > user > repo.
 */
export const SKILL_SCOPES = ['admin', 'system', 'user', 'repo'] as const;
export type SkillScope = (typeof SKILL_SCOPES)[number];

/** One argument of a prompt template (MCP PromptArgument). */
export interface StoredPromptArgument {
  name: string;
  description: string | null;
  required: boolean;
}

/** A prompt template of a package, served as the MCP prompt `<skill>__<name>`. */
export interface StoredPrompt {
  name: string;
  /** `<skill>__<prompt>`, the MCP prompt name. */
  qualified_name: string;
  title: string | null;
  description: string;
  arguments: StoredPromptArgument[];
  /** Text with `{{argument}}` placeholders, filled in by prompts/get. */
  template: string;
}

/** `{{argument}}` placeholders of a prompt template (the dcc-mcp-core prompts primitive's spelling). */
export const PROMPT_PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The template with each placeholder replaced by its argument; an optional argument not given reads as empty. */
export function renderPrompt(template: string, args: Readonly<Record<string, string>>): string {
  return template.replace(PROMPT_PLACEHOLDER, (_, name: string) => (Object.hasOwn(args, name) ? (args[name] as string) : ''));
}

/** A static resource of a package (a file of it), served under the URI its author gave it. */
export interface StoredResource {
  /** Absolute URI as written, normalised by WHATWG URL parsing (what resources/read compares). */
  uri: string;
  name: string;
  title: string | null;
  description: string | null;
  mime_type: string;
  /** The package file (package-relative) whose bytes resources/read returns. */
  path: string;
  size: number;
}

/** How a runtime is looked for (seed 004's three probe kinds). */
export type RuntimeKind = 'env_var' | 'binary' | 'python_package';

/**
 * Seed 004: `available` when found; a missing optional runtime makes its skill `degraded`, a missing required one
 * `missing`.
 */
export type RuntimeState = 'available' | 'degraded' | 'missing';

/** One declared runtime with what the probe at registration found. */
export interface StoredRuntime {
  name: string;
  type: RuntimeKind;
  /** What is looked for: the variable, the program, or the Python module. */
  target: string;
  /** The Python distribution (python_package), for the install hint; null otherwise. */
  package: string | null;
  optional: boolean;
  feature_level: string | null;
  /** `install_hint` or `guidance` as written. */
  hint: string | null;
  state: RuntimeState;
}

/** A runtime as its package declares it, before the probe. */
export type RuntimeDeclaration = Omit<StoredRuntime, 'state'>;

/** A skill's runtime state in one word, with the names behind it (what search hits and skill views show). */
export interface RuntimeSummary {
  state: RuntimeState;
  /** When the probe ran (registration). */
  probed_at: string;
  available: string[];
  degraded: string[];
  missing: string[];
}

/** The state of one runtime from whether it was found. */
export function runtimeStateOf(found: boolean, optional: boolean): RuntimeState {
  if (found) return 'available';
  return optional ? 'degraded' : 'missing';
}

/** The skill's summary: missing when a required runtime is, else degraded when an optional one is; null without runtimes. */
export function summariseRuntimes(runtimes: readonly StoredRuntime[], probedAt: string): RuntimeSummary | null {
  if (runtimes.length === 0) return null;
  const named = (state: RuntimeState) => runtimes.filter((runtime) => runtime.state === state).map((runtime) => runtime.name);
  const summary = { probed_at: probedAt, available: named('available'), degraded: named('degraded'), missing: named('missing') };
  const state: RuntimeState = summary.missing.length > 0 ? 'missing' : summary.degraded.length > 0 ? 'degraded' : 'available';
  return { state, ...summary };
}
