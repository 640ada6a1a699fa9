import type { SkillErrorCode } from '@skill-registry/sdk';
import type { StoredSkillVersion } from '#skill-versions/index.js';

export const EXECUTION_STATUSES = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];
const TERMINAL_STATUSES: readonly ExecutionStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELLED'];

export function isTerminal(status: ExecutionStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** Why an execution failed: a stable code, a message a person can act on, and details. */
export interface ExecutionError {
  /** A handler's codes, or the platform's: QUEUE_UNAVAILABLE, HOOK_DENIED (a hook refused the run), HOOK_FAILED (a fail-closed hook failed). */
  code: SkillErrorCode | 'QUEUE_UNAVAILABLE' | 'HOOK_DENIED' | 'HOOK_FAILED';
  message: string;
  details: Record<string, unknown>;
}

export type ExecutionPurpose = 'call' | 'promotion';

/** An execution as stored. */
export interface ExecutionRecord {
  id: string;
  skillVersionId: string;
  skillName: string;
  version: string;
  purpose: ExecutionPurpose;
  /** The digital twin branch the execution works on. */
  branch: string;
  /** W3C trace id of the request that asked for it; null when it came without trace context and tracing is off. */
  traceId: string | null;
  /** The W3C traceparent its attempts continue. */
  traceParent: string | null;
  /** The tool it runs (Agent Skills versions); null for a TypeScript skill's handler. */
  tool: string | null;
  status: ExecutionStatus;
  input: Record<string, unknown>;
  output: Record<string, unknown> | null;
  error: ExecutionError | null;
  attempts: number;
  maxAttempts: number;
  attemptRunning: boolean;
  warnings: string[];
  sessionId: string | null;
  caller: string;
  idempotencyKey: string | null;
  requestHash: string | null;
  cancelRequestedAt: Date | null;
  heartbeatAt: Date | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  durationMs: number | null;
}

/** Errors worth another attempt (only ever for idempotent skills). */
const RETRYABLE_CODES: ReadonlySet<string> = new Set([
  'HANDLER_ERROR',
  'TOOL_ERROR',
  'TOOL_TIMEOUT',
  'HANDLER_TIMEOUT',
  'WORKER_LOST',
  // The handler's sandbox process died or passed a limit: worth another attempt in a fresh process.
  'SANDBOX_CRASHED',
  'RESOURCE_EXHAUSTED',
]);

/** Total attempts allowed: 1 + retries for idempotent skills, always 1 otherwise. */
export function maxAttemptsFor(version: { idempotent: boolean; retries: number }): number {
  return version.idempotent ? 1 + Math.max(0, version.retries) : 1;
}

export function isRetryable(error: ExecutionError, idempotent: boolean): boolean {
  return idempotent && RETRYABLE_CODES.has(error.code);
}

/**
 * Delay before attempt `nextAttempt` (2, 3, ...): exponential from `baseMs`, capped at `maxMs`,
 * with "equal jitter" (half fixed, half random) so retries of many executions spread out.
 */
export function retryDelayMs(nextAttempt: number, baseMs = 500, maxMs = 30_000, random: () => number = Math.random): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, nextAttempt - 2));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}

/** What the executor needs of the skill version an execution runs (read by libs/skill-versions' one reader). */
export type ExecutableVersion = Pick<
  StoredSkillVersion,
  | 'name'
  | 'version'
  | 'domain'
  | 'tags'
  | 'status'
  | 'timeoutSeconds'
  | 'retries'
  | 'idempotent'
  | 'maxRetriesPerGate'
  | 'inputSchema'
  | 'outputSchema'
  | 'inputSchemaRef'
  | 'outputSchemaRef'
  | 'toolsRequired'
  | 'format'
  | 'tools'
  | 'workflows'
  | 'contentHash'
>;
