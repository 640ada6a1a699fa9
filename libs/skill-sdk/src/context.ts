/** Structured logger handed to skills, already bound to the execution and session ids. */
export interface SkillLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `bindings` to every line. */
  child(bindings: Record<string, unknown>): SkillLogger;
}

/** Options of one tool call. */
export interface ToolInvokeOptions {
  /** Give up after this many milliseconds (the bridge sends an MCP cancellation). */
  timeoutMs?: number;
  /** Abort the call early; defaults to the execution's signal. */
  signal?: AbortSignal;
}

/** A tool an adapter offers, as listed by the bridge. */
export interface ToolDescriptor {
  toolId: string;
  capability: string | null;
  description: string;
  available: boolean;
  inputSchema: Record<string, unknown>;
}

/**
 * What calling a tool the operator switched off (`TOOLS_DISABLED`) returns instead of raising (seed 001
 * §3.3, graceful degradation): the handler decides what to do, e.g. a fallback or a precondition failure.
 */
export interface DisabledToolResult {
  disabled: true;
  reason: string;
}

/** Whether a tool call's result is the structured answer of a disabled tool. */
export function isDisabledTool(result: Record<string, unknown>): result is Record<string, unknown> & DisabledToolResult {
  return result.disabled === true && typeof result.reason === 'string' && Object.keys(result).length === 2;
}

/** The only way a skill reaches external engineering tools: MCP calls through the executor. */
export interface McpBridge {
  /**
   * Call `toolId` (`<adapter>.<tool>`) with JSON params; throws McpToolError or McpTimeoutError. A tool
   * switched off by the operator answers a DisabledToolResult instead (check with `isDisabledTool`).
   */
  invoke(toolId: string, params: Record<string, unknown>, options?: ToolInvokeOptions): Promise<Record<string, unknown>>;
  /** Whether the tool's adapter is reachable and offers the tool now (false for a disabled tool). */
  isAvailable(toolId: string): Promise<boolean>;
  /** Tools offered by the configured adapters, optionally only those declaring `capability`. */
  listTools(capability?: string): Promise<ToolDescriptor[]>;
}

/** One immutable revision of a work product's content. */
export interface WorkProductRevision {
  /** Revision number, unique within the work product across every branch (1, 2, ...). */
  revision: number;
  /** Branch the revision was written on. */
  branch: string;
  /** `sha256:<hex>` of the content; also the HTTP ETag. */
  contentHash: string;
  mediaType: string;
  /** Content size in bytes. */
  size: number;
  metadata: Record<string, unknown>;
  /** Token identity of the writer, or `execution:<id>` when a skill wrote it. */
  createdBy: string;
  /** Execution that wrote the revision, when a skill did. */
  executionId: string | null;
  /** ISO 8601 time of the write. */
  createdAt: string;
}

/** A named, typed engineering artefact (a CAD model, a mesh, a netlist, ...) as seen on one branch. */
export interface WorkProduct {
  id: string;
  /** `cad_model`, `mesh`, `netlist`, `pcb`, `simulation_result`, `report`, ... (lower_snake_case, extensible). */
  kind: string;
  name: string;
  /** Branch this view is of. */
  branch: string;
  /** The revision current on that branch. */
  current: WorkProductRevision;
  createdAt: string;
}

/** A constraint on a work product, e.g. `{ kind: 'max_von_mises_stress', max_von_mises_mpa: 235, safety_factor: 1.5, material: 's235' }`. */
export interface TwinConstraint {
  /** The constraint kind; its other fields are validated against that kind's schema. */
  kind: string;
  [field: string]: unknown;
}

/** The content of one revision. */
export interface WorkProductContent {
  bytes: Uint8Array;
  mediaType: string;
  revision: number;
  contentHash: string;
  /** The bytes decoded as UTF-8 (for text formats: meshes, decks, netlists). */
  text(): string;
}

/** What `putWorkProduct` writes: a new work product, or a new revision of `id`. */
export interface PutWorkProductRequest {
  /** Existing work product to add a revision to; omit to create a work product. */
  id?: string;
  kind: string;
  name: string;
  /** Text is stored as UTF-8. */
  content: string | Uint8Array;
  mediaType: string;
  metadata?: Record<string, unknown>;
  /** Defaults to the execution's branch. */
  branch?: string;
}

/** Options naming the branch of a twin call; the default is the execution's branch. */
export interface TwinBranchOption {
  branch?: string;
}

/**
 * The digital twin: work products and their constraints, per branch. Every call goes through the
 * executor (the handler has no database access), is an event of the execution, and is recorded as
 * its provenance (which revisions it read and wrote).
 */
export interface TwinApi {
  /** The work product as current on the branch, or null when it does not exist there (or is archived). */
  getWorkProduct(id: string, options?: TwinBranchOption): Promise<WorkProduct | null>;
  /** Content of the current revision on the branch, or of `revision` (which must be visible on the branch). Throws TwinError when missing. */
  readContent(id: string, options?: TwinBranchOption & { revision?: number }): Promise<WorkProductContent>;
  /** Writes a revision on the branch; returns the work product id and the new revision. */
  putWorkProduct(request: PutWorkProductRequest): Promise<{ id: string; revision: number; contentHash: string; branch: string }>;
  /** Work products current on the branch (archived ones hidden), optionally of one kind; at most 1,000. */
  listWorkProducts(options?: TwinBranchOption & { kind?: string }): Promise<WorkProduct[]>;
  /** Constraints current on the branch for the work product; empty when none are set. Throws TwinError when the work product is missing. */
  getConstraints(id: string, options?: TwinBranchOption): Promise<TwinConstraint[]>;
}

/** Everything a skill handler may use while it runs. */
export interface SkillContext {
  /** MCP bridge to the tool adapters. */
  readonly mcp: McpBridge;
  /** The digital twin: work products and constraints on `branch` (and other branches by name). */
  readonly twin: TwinApi;
  /** Logger bound to `executionId` and `sessionId`. */
  readonly logger: SkillLogger;
  /** Id of the execution this handler instance serves. */
  readonly executionId: string;
  /** Agent session the execution belongs to, when the caller gave one. */
  readonly sessionId: string | null;
  /** Branch of the digital twin the caller works on (default `main`). */
  readonly branch: string;
  /** Fires when the execution is cancelled or times out: stop work and return promptly. */
  readonly signal: AbortSignal;
}
