import type { Task } from '@modelcontextprotocol/server';
import type { TaskRow } from './mcp-task-store.js';

/**
 * A task's status from its execution's (issue 26 §2), in the two shapes the protocol revisions give a
 * task: 2025-11-25 core tasks (`ttl`, `pollInterval`; a tool error is a `failed` task) and the
 * 2026-07-28 extension `io.modelcontextprotocol/tasks` (`ttlMs`, `pollIntervalMs`; a tool error is a
 * `completed` task whose result has `isError`, `failed` is for JSON-RPC errors only).
 */

export type TaskStatus = Task['status'];
/** `legacy`: a 2025-era session (2025-11-25 core tasks); `modern`: a 2026-07-28 request (the tasks extension). */
export type TaskEra = 'legacy' | 'modern';

export interface TaskState {
  taskId: string;
  status: TaskStatus;
  statusMessage: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs: number;
}

export function isTerminalTask(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** The task's state now: a task cancelled through tasks/cancel stays cancelled, whatever its execution does after. */
export function taskStateOf(row: TaskRow, era: TaskEra): TaskState {
  const { status, statusMessage } = statusOf(row, era);
  const changes = [row.createdAt, row.startedAt, row.finishedAt, row.cancelledAt].filter((at): at is Date => at !== null);
  return {
    taskId: row.taskId,
    status,
    statusMessage,
    createdAt: row.createdAt.toISOString(),
    lastUpdatedAt: new Date(Math.max(...changes.map((at) => at.getTime()))).toISOString(),
    ttlMs: row.ttlMs,
    pollIntervalMs: row.pollIntervalMs,
  };
}

function statusOf(row: TaskRow, era: TaskEra): { status: TaskStatus; statusMessage: string } {
  if (row.cancelledAt !== null) return { status: 'cancelled', statusMessage: 'cancelled through tasks/cancel' };
  const failure = row.error ? `${row.error.code}: ${row.error.message}` : `execution ${row.status.toLowerCase()}`;
  switch (row.status) {
    case 'QUEUED':
      return { status: 'working', statusMessage: 'queued' };
    case 'RUNNING':
      return { status: 'working', statusMessage: `running, attempt ${Math.max(row.attempts, 1)} of ${row.maxAttempts}` };
    case 'SUCCEEDED':
      return { status: 'completed', statusMessage: 'succeeded' };
    case 'CANCELLED':
      return { status: 'cancelled', statusMessage: failure };
    case 'FAILED':
      return { status: era === 'legacy' ? 'failed' : 'completed', statusMessage: failure };
  }
}

/** The 2025-11-25 `Task`. */
export function legacyTask(state: TaskState): Task {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = state;
  return { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttl: ttlMs, pollInterval: pollIntervalMs };
}

/** The 2026-07-28 extension's `Task` (inlined in its results and notifications). */
export function modernTask(state: TaskState): Record<string, unknown> {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = state;
  return { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs };
}

/** Polls a client should make over a run: about 30 over the tool's timeout, between every 0.5 s and every 5 s. */
export function pollIntervalFor(timeoutSeconds: number): number {
  return Math.min(5000, Math.max(500, Math.round((timeoutSeconds * 1000) / 30)));
}
