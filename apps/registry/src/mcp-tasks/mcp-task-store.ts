import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import type { ExecutionError, ExecutionStatus } from '#executions/index.js';
import { DATABASE_POOL } from '../config/database-pool.js';

/** An MCP task with the facts of its execution that its status is made of. */
export interface TaskRow {
  taskId: string;
  owner: string;
  ttlMs: number | null;
  pollIntervalMs: number;
  createdAt: Date;
  expiresAt: Date | null;
  cancelledAt: Date | null;
  status: ExecutionStatus;
  attempts: number;
  maxAttempts: number;
  startedAt: Date | null;
  finishedAt: Date | null;
  error: ExecutionError | null;
}

const SELECT_TASKS = `SELECT t.task_id, t.owner, t.ttl_ms, t.poll_interval_ms, t.created_at, t.expires_at, t.cancelled_at,
         e.status, e.attempts, e.max_attempts, e.started_at, e.finished_at, e.error
    FROM mcp_tasks t JOIN executions e ON e.id = t.task_id`;

/** A swept batch; the sweep repeats until a batch comes back short. */
const SWEEP_BATCH = 1000;

/**
 * The mcp_tasks table (issue 26 §2): the task facts beside its execution's row. Every read names the
 * owner, so a task is found only by the identity that made it.
 */
@Injectable()
export class McpTaskStore {
  constructor(@Inject(DATABASE_POOL) private readonly pool: pg.Pool) {}

  /** Stores the task of an execution (committed before the CreateTaskResult is sent). */
  async create(task: { taskId: string; owner: string; ttlMs: number; pollIntervalMs: number }): Promise<TaskRow> {
    await this.pool.query(
      `INSERT INTO mcp_tasks (task_id, owner, ttl_ms, poll_interval_ms, created_at, expires_at)
       VALUES ($1::uuid, $2, $3::int, $4::int, now(), now() + $3::int * interval '1 millisecond')`,
      [task.taskId, task.owner, task.ttlMs, task.pollIntervalMs],
    );
    return (await this.find(task.taskId, task.owner)) as TaskRow;
  }

  /** The owner's task, expired or not; null when there is none (another owner's is none). */
  async find(taskId: string, owner: string): Promise<TaskRow | null> {
    if (!UUID.test(taskId)) return null;
    const { rows } = await this.pool.query(`${SELECT_TASKS} WHERE t.task_id = $1::uuid AND t.owner = $2`, [taskId, owner]);
    return rows[0] ? taskRowOf(rows[0]) : null;
  }

  /** The owner's unexpired tasks, newest first, after the position `after` names. */
  async list(owner: string, limit: number, after?: { createdAt: Date; taskId: string }): Promise<TaskRow[]> {
    const { rows } = await this.pool.query(
      `${SELECT_TASKS} WHERE t.owner = $1 AND (t.expires_at IS NULL OR t.expires_at > now())
         AND ($2::timestamptz IS NULL OR (t.created_at, t.task_id) < ($2::timestamptz, $3::uuid))
       ORDER BY t.created_at DESC, t.task_id DESC LIMIT $4`,
      [owner, after?.createdAt ?? null, after?.taskId ?? null, limit],
    );
    return rows.map(taskRowOf);
  }

  /** Marks the task cancelled (once); the row after it. */
  async markCancelled(taskId: string, owner: string): Promise<TaskRow | null> {
    await this.pool.query(`UPDATE mcp_tasks SET cancelled_at = now() WHERE task_id = $1::uuid AND owner = $2 AND cancelled_at IS NULL`, [
      taskId,
      owner,
    ]);
    return this.find(taskId, owner);
  }

  /** Tasks of one owner whose executions have not finished (the per-owner limit). */
  async countUnfinished(owner: string): Promise<number> {
    const { rows } = await this.pool.query(
      `SELECT count(*)::int AS n FROM mcp_tasks t JOIN executions e ON e.id = t.task_id
        WHERE t.owner = $1 AND e.status IN ('QUEUED', 'RUNNING') AND t.cancelled_at IS NULL`,
      [owner],
    );
    return rows[0].n as number;
  }

  /** Deletes tasks expired longer than `graceMs` ago (their executions stay); how many went. */
  async sweepExpired(graceMs: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const { rowCount } = await this.pool.query(
        `DELETE FROM mcp_tasks WHERE task_id IN (
           SELECT task_id FROM mcp_tasks WHERE expires_at < now() - $1::int * interval '1 millisecond' LIMIT ${SWEEP_BATCH})`,
        [graceMs],
      );
      removed += rowCount ?? 0;
      if ((rowCount ?? 0) < SWEEP_BATCH) return removed;
    }
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const dateOrNull = (value: unknown): Date | null => (value === null || value === undefined ? null : new Date(value as string));

function taskRowOf(row: Record<string, unknown>): TaskRow {
  return {
    taskId: row.task_id as string,
    owner: row.owner as string,
    ttlMs: row.ttl_ms as number | null,
    pollIntervalMs: row.poll_interval_ms as number,
    createdAt: new Date(row.created_at as string),
    expiresAt: dateOrNull(row.expires_at),
    cancelledAt: dateOrNull(row.cancelled_at),
    status: row.status as ExecutionStatus,
    attempts: row.attempts as number,
    maxAttempts: row.max_attempts as number,
    startedAt: dateOrNull(row.started_at),
    finishedAt: dateOrNull(row.finished_at),
    error: (row.error ?? null) as ExecutionError | null,
  };
}
