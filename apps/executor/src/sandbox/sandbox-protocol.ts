import type { ExecutionError } from '#executions/index.js';

/** What the executor asks a sandbox thread to run. */
export interface RunRequest {
  type: 'run';
  runId: number;
  executionId: string;
  sessionId: string | null;
  branch: string;
  packagePath: string;
  contentHash: string;
  skillName: string;
  inputSchemaRef: string;
  outputSchemaRef: string;
  input: Record<string, unknown>;
}

export interface AbortRequest {
  type: 'abort';
  runId: number;
}

export interface ToolReply {
  type: 'tool_reply';
  callId: number;
  ok: boolean;
  value?: unknown;
  error?: ExecutionError;
}

/** `retire`: the thread loaded the compiler to transpile a package and asks to be replaced after this run. */
export type ToParent =
  | { type: 'ready' }
  | { type: 'result'; runId: number; outcome: 'ok'; output: Record<string, unknown>; retire?: boolean }
  | { type: 'result'; runId: number; outcome: 'error'; error: ExecutionError; retire?: boolean }
  | { type: 'tool_call'; runId: number; callId: number; op: 'invoke' | 'isAvailable' | 'listTools'; args: unknown[] }
  | { type: 'twin_call'; runId: number; callId: number; op: TwinOp; args: unknown[] }
  | { type: 'log'; runId: number; level: string; message: string; fields: Record<string, unknown> };

/** The digital twin calls a handler may make (SkillContext.twin); served by the executor, never in the thread. */
export const TWIN_OPS = ['getWorkProduct', 'readContent', 'putWorkProduct', 'listWorkProducts', 'getConstraints'] as const;
export type TwinOp = (typeof TWIN_OPS)[number];

/** How the executor answers a twin call: a value, or a failure the thread raises as the SDK's TwinError. */
export type TwinCallHandler = (op: TwinOp, args: unknown[], signal: AbortSignal) => Promise<ToolReplyBody>;
export type ToolReplyBody = { ok: boolean; value?: unknown; error?: ExecutionError };

export type ToThread = RunRequest | AbortRequest | ToolReply;
