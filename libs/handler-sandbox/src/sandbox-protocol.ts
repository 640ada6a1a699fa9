import { z } from 'zod';
import type { ExecutionError } from '#executions/index.js';

/**
 * The protocol between the executor and a sandbox process: length-prefixed JSON frames on the pipe at
 * fd 3 (see FrameChannel). Everything the process sends is untrusted: the executor parses it with
 * `parseFromSandbox` (shape and sizes) and bounds its rate, and ends the process on any violation.
 */

/** What the executor asks a sandbox process to run. `packagePath` is the package as the process sees it. */
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

/**
 * Takes back a run the process was handed while it ran another (HandlerSandboxProcess.runNext) and has not begun:
 * the process answers 'withdrawn' and never starts it; a run it has begun goes on, and the request is ignored.
 */
interface WithdrawRequest {
  type: 'withdraw';
  runId: number;
}

export interface ToolReply {
  type: 'tool_reply';
  callId: number;
  ok: boolean;
  value?: unknown;
  error?: ExecutionError;
}

/**
 * What the registry asks an inspection process (PackageInspector): evaluate the package at `packagePath` and
 * report the JSON Schemas its definition names and what is wrong with its code (inspectPackageCode).
 */
export interface InspectRequest {
  type: 'inspect';
  runId: number;
  packagePath: string;
  references: { input_schema?: string; output_schema?: string };
  files: { schema: boolean; handler: boolean };
}

export type ToSandbox = RunRequest | AbortRequest | WithdrawRequest | ToolReply | InspectRequest;

/** The digital twin calls a handler may make (SkillContext.twin); served by the executor, never in the sandbox. */
const TWIN_OPS = ['getWorkProduct', 'readContent', 'putWorkProduct', 'listWorkProducts', 'getConstraints'] as const;
export type TwinOp = (typeof TWIN_OPS)[number];
const TOOL_OPS = ['invoke', 'isAvailable', 'listTools'] as const;

/** The codes a handler may end a run with; anything else it claims becomes HANDLER_ERROR. */
const HANDLER_CODES = ['INPUT_INVALID', 'OUTPUT_INVALID', 'PRECONDITION_FAILED', 'TOOL_ERROR', 'TOOL_TIMEOUT', 'HANDLER_ERROR'] as const;

const MAX_MESSAGE_CHARS = 16 * 1024;
/** An inspection's findings: the two files it evaluates, and definition.json where a named export is missing. */
const inspectionIssue = z
  .object({
    severity: z.enum(['error', 'warning', 'info']),
    category: z.enum(['schema', 'handler']),
    file: z.enum(['schema.ts', 'handler.ts', 'definition.json']),
    path: z.string().max(1024),
    message: z.string().max(MAX_MESSAGE_CHARS),
    hint: z.string().max(MAX_MESSAGE_CHARS),
  })
  .strict();
const id = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const record = z.record(z.string(), z.unknown());
const handlerError = z.object({
  code: z.string().max(64),
  message: z.string().max(MAX_MESSAGE_CHARS),
  details: record,
});

const fromSandbox = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }).strict(),
  z
    .object({
      type: z.literal('result'),
      runId: id,
      outcome: z.enum(['ok', 'error']),
      output: record.optional(),
      error: handlerError.optional(),
      /** CPU time the process has used so far (its own word: a lie only spares it a recycle the CPU limit then forces). */
      cpuMs: z.number().nonnegative().optional(),
      /** V8 heap in use after the run, MB (its own word too: a lie only spares it a recycle its heap limit then forces). */
      heapMb: z.number().nonnegative().optional(),
    })
    .strict()
    .refine((result) => (result.outcome === 'ok' ? result.output !== undefined : result.error !== undefined), {
      message: 'a result carries output when ok, an error otherwise',
    }),
  z
    .object({
      type: z.literal('inspected'),
      runId: id,
      inputJsonSchema: record.nullable(),
      outputJsonSchema: record.nullable(),
      issues: z.array(inspectionIssue).max(200),
    })
    .strict(),
  z.object({ type: z.literal('withdrawn'), runId: id }).strict(),
  z.object({ type: z.literal('tool_call'), runId: id, callId: id, op: z.enum(TOOL_OPS), args: z.array(z.unknown()).max(3) }).strict(),
  z.object({ type: z.literal('twin_call'), runId: id, callId: id, op: z.enum(TWIN_OPS), args: z.array(z.unknown()).max(3) }).strict(),
  z
    .object({
      type: z.literal('log'),
      runId: id,
      level: z.enum(['debug', 'info', 'warn', 'error']),
      message: z.string().max(MAX_MESSAGE_CHARS),
      fields: record,
    })
    .strict(),
]);

export type FromSandbox = z.infer<typeof fromSandbox>;

/** The message, or why it is not one the protocol knows. */
export function parseFromSandbox(value: unknown): { ok: true; message: FromSandbox } | { ok: false; problem: string } {
  const parsed = fromSandbox.safeParse(value);
  if (parsed.success) return { ok: true, message: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, problem: `${issue?.path.join('.') || 'message'}: ${issue?.message ?? 'invalid'}` };
}

/** A handler's error as the executor stores it: codes outside HANDLER_CODES become HANDLER_ERROR. */
export function handlerErrorOf(error: { code: string; message: string; details: Record<string, unknown> }): ExecutionError {
  const code = (HANDLER_CODES as readonly string[]).includes(error.code) ? (error.code as ExecutionError['code']) : 'HANDLER_ERROR';
  return { code, message: error.message, details: error.details };
}

/** How the executor answers a twin call: a value, or a failure the sandbox raises as the SDK's TwinError. */
export type TwinCallHandler = (op: TwinOp, args: unknown[], signal: AbortSignal) => Promise<ToolReplyBody>;
export type ToolReplyBody = { ok: boolean; value?: unknown; error?: ExecutionError };
