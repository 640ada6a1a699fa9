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

/** The only way a skill reaches external engineering tools: MCP calls through the executor. */
export interface McpBridge {
  /** Call `toolId` (`<adapter>.<tool>`) with JSON params; throws McpToolError or McpTimeoutError. */
  invoke(toolId: string, params: Record<string, unknown>, options?: ToolInvokeOptions): Promise<Record<string, unknown>>;
  /** Whether the tool's adapter is reachable and offers the tool now. */
  isAvailable(toolId: string): Promise<boolean>;
  /** Tools offered by the configured adapters, optionally only those declaring `capability`. */
  listTools(capability?: string): Promise<ToolDescriptor[]>;
}

/** Everything a skill handler may use while it runs. */
export interface SkillContext {
  /** MCP bridge to the tool adapters. */
  readonly mcp: McpBridge;
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
