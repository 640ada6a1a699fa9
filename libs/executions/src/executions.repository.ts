import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { ExecutableVersion, ExecutionError, ExecutionPurpose, ExecutionRecord, ExecutionStatus } from './execution-model.js';
import { SkillVersionReader, pgRows } from '#skill-versions/index.js';
import { toExecutionRecord } from './execution-rows.js';
import { CREATE_EXECUTIONS, CREATE_EXECUTIONS_UNFLUSHED, FINISH_EXECUTIONS, START_ATTEMPTS } from './execution-write-statements.js';

/** What the executor needs of the skill version an execution runs. */

export interface NewExecution {
  /**
   * The id, when the caller chose it to enqueue the job alongside the insert (ExecutionJob.early; see queuedRecordOf);
   * a fresh one otherwise.
   */
  id?: string;
  skillVersionId: string;
  skillName: string;
  version: string;
  purpose: ExecutionPurpose;
  input: Record<string, unknown>;
  maxAttempts: number;
  warnings: string[];
  sessionId: string | null;
  caller: string;
  idempotencyKey: string | null;
  requestHash: string | null;
  /** The tool of an Agent Skills version; absent/null for a TypeScript skill. */
  tool?: string | null;
  /** The digital twin branch; default main. */
  branch?: string;
  traceId?: string | null;
  traceParent?: string | null;
}

export type TerminalStatus = Extract<ExecutionStatus, 'SUCCEEDED' | 'FAILED' | 'CANCELLED'>;

/** One execution's next attempt to start (see ExecutionsRepository.startAttempt). */
export interface StartRequest {
  id: string;
  /**
   * How long the attempt has already run when its start is written (a deferred start: the handler ran
   * first); a first start is recorded that long ago, as the attempt's `started` event is. Absent: now.
   */
  ranForMs?: number;
}

/** One execution's move to a terminal state (see ExecutionsRepository.finish). */
export interface FinishRequest {
  id: string;
  status: TerminalStatus;
  /** The input as it is to be kept, when hooks redact it (left as stored otherwise). */
  input?: Record<string, unknown>;
  output?: Record<string, unknown> | null;
  error?: ExecutionError | null;
  guard?: AttemptGuard;
  /**
   * Set when the first attempt ran, for this many milliseconds, without its start being written (the
   * executor defers that write for a sandboxed handler that has used no channel yet, see AttemptStart):
   * the finish applies only if the execution is still untouched, and counts that run as attempt 1.
   */
  unstartedMs?: number;
}

export interface ExecutionListFilter {
  skill?: string;
  status?: ExecutionStatus;
  sessionId?: string;
  /** Created at or after this time. */
  since?: Date;
  /** Created before this time. */
  until?: Date;
  limit: number;
  /** Continue after this execution (created_at desc, id desc). */
  after?: { createdAt: Date; id: string };
}

export interface VersionUsage {
  version: string;
  windows: Record<'7d' | '30d' | '90d', { executions: number; callers: number; sessions: number }>;
  last_called_at: string | null;
}

const TERMINAL = `('SUCCEEDED','FAILED','CANCELLED')`;

/**
 * Makes a write about an attempt conditional: it applies only while `attempt` is the execution's
 * current attempt and still marked running, and (with `staleForMs`) only while that attempt's
 * heartbeat is older than that. A worker that lost its attempt to a takeover, and a takeover that
 * lost the race to a live worker's heartbeat, both change nothing.
 */
export interface AttemptGuard {
  attempt: number;
  staleForMs?: number;
}

/** SQL of AttemptGuard for parameters $n (attempt) and $n+1 (staleForMs); nulls disable each part. */
function guardSql(n: number): string {
  return `($${n}::int IS NULL OR (attempts = $${n} AND attempt_running))
          AND ($${n + 1}::int IS NULL OR heartbeat_at < now() - ($${n + 1}::int * interval '1 millisecond'))`;
}

function guardValues(guard: AttemptGuard | undefined): [number | null, number | null] {
  return [guard?.attempt ?? null, guard?.staleForMs ?? null];
}

/** A duration for an int column: whole, never negative; null when absent. */
function wholeMs(ms: number | undefined): number | null {
  return ms === undefined ? null : Math.max(0, Math.round(ms));
}

/** The multi-row statements match rows to requests by id: one statement may not name an execution twice. */
function assertDistinct(ids: string[]): void {
  if (new Set(ids).size !== ids.length) throw new Error('one statement cannot write the same execution twice');
}

/**
 * The only place that reads and writes executions. Plain pg rather than Prisma: these statements
 * sit on the execution hot path (a Prisma round trip costs ~1 ms more here, see field notes).
 */
export class ExecutionsRepository {
  private versions: SkillVersionReader | undefined;

  private readonly namedStatements: boolean;

  /**
   * `namedStatements: false` when the pool goes through a transaction pooler (see
   * ExecutionConnectionSettings): each statement is then parsed where it runs.
   */
  constructor(
    private readonly pool: pg.Pool,
    options: { namedStatements?: boolean } = {},
  ) {
    this.namedStatements = options.namedStatements ?? true;
  }

  /**
   * Runs one of this repository's fixed statements, as a named prepared statement where the pool allows
   * it: Postgres parses and plans it once per connection instead of on every call (about a third of its
   * CPU per execution on the hot path, see bench/executor).
   */
  private sql(name: string, text: string, values: unknown[]): Promise<pg.QueryResult> {
    return this.namedStatements ? this.pool.query({ name: `executions.${name}`, text, values }) : this.pool.query(text, values);
  }

  /** Inserts a QUEUED execution; with an idempotency key already used by `caller`, returns the existing one. */
  async create(execution: NewExecution): Promise<{ record: ExecutionRecord; created: boolean }> {
    return (await this.createMany([execution]))[0] as { record: ExecutionRecord; created: boolean };
  }

  /**
   * create() for several executions in one statement (one transaction); one result per execution, in
   * order. An execution whose idempotency key `caller` already used (before, or earlier in this list)
   * gets the existing one, `created: false`.
   *
   * `commit: 'unflushed'` returns once the rows are committed (visible to every reader) without waiting for
   * them to reach the disk: a database crash in the next few hundred ms may lose them. For callers who
   * acknowledge nothing before a later flushed commit (the execution's finish: the WAL is flushed in order, so
   * flushing a later commit flushes this one too), or before findByIdFlushed.
   */
  async createMany(
    executions: NewExecution[],
    commit: 'flushed' | 'unflushed' = 'flushed',
  ): Promise<{ record: ExecutionRecord; created: boolean }[]> {
    const ids = executions.map((execution) => execution.id ?? randomUUID());
    const column = <T>(pick: (execution: NewExecution) => T) => executions.map(pick);
    const statement = commit === 'flushed' ? CREATE_EXECUTIONS : CREATE_EXECUTIONS_UNFLUSHED;
    const inserted = await this.sql(commit === 'flushed' ? 'createMany' : 'createManyUnflushed', statement, [
      ids,
      column((e) => e.skillVersionId),
      column((e) => e.skillName),
      column((e) => e.version),
      column((e) => e.purpose),
      column((e) => JSON.stringify(e.input)),
      column((e) => e.maxAttempts),
      column((e) => JSON.stringify(e.warnings)),
      column((e) => e.sessionId),
      column((e) => e.caller),
      column((e) => e.idempotencyKey),
      column((e) => e.requestHash),
      column((e) => e.tool ?? null),
      column((e) => e.branch ?? 'main'),
      column((e) => e.traceId ?? null),
      column((e) => e.traceParent ?? null),
    ]);
    const byId = new Map(inserted.rows.map((row) => [row.id as string, row]));
    const results: { record: ExecutionRecord; created: boolean }[] = [];
    for (const [index, execution] of executions.entries()) {
      const row = byId.get(ids[index] as string);
      if (row) {
        results.push({ record: toExecutionRecord(row), created: true });
        continue;
      }
      // Skipped by ON CONFLICT: the caller's key is taken; the execution it names is the answer.
      const existing = await this.sql('findByIdempotencyKey', `SELECT * FROM executions WHERE caller = $1 AND idempotency_key = $2`, [
        execution.caller,
        execution.idempotencyKey,
      ]);
      results.push({ record: toExecutionRecord(existing.rows[0]), created: false });
    }
    return results;
  }

  /**
   * The execution as stored, once it is on disk; null when there is none. An update of its row that changes
   * nothing: a write, so its commit (with `synchronous_commit` as configured, on) flushes the WAL up to it, and
   * with it the row's own create, even one committed 'unflushed' (createMany). (A transaction that writes nothing
   * flushes nothing, whatever its setting.)
   */
  async findByIdFlushed(id: string): Promise<ExecutionRecord | null> {
    const result = await this.sql('findByIdFlushed', `UPDATE executions SET status = status WHERE id = $1 RETURNING *`, [id]);
    return result.rows[0] ? toExecutionRecord(result.rows[0]) : null;
  }

  async findById(id: string): Promise<ExecutionRecord | null> {
    const result = await this.sql('findById', `SELECT * FROM executions WHERE id = $1`, [id]);
    return result.rows[0] ? toExecutionRecord(result.rows[0]) : null;
  }

  /** The execution and the version it runs, for the executor. */
  async findForRun(id: string): Promise<{ execution: ExecutionRecord; version: ExecutableVersion } | null> {
    const execution = await this.findById(id);
    const version = execution ? await this.findVersion(execution.skillVersionId) : null;
    return execution && version ? { execution, version } : null;
  }

  async list(filter: ExecutionListFilter): Promise<ExecutionRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: string, value: unknown) => {
      params.push(value);
      where.push(clause.replace('?', `$${params.length}`));
    };
    if (filter.skill) add('skill_name = ?', filter.skill);
    if (filter.status) add('status = ?', filter.status);
    if (filter.sessionId) add('session_id = ?', filter.sessionId);
    if (filter.since) add('created_at >= ?', filter.since);
    if (filter.until) add('created_at < ?', filter.until);
    if (filter.after) {
      params.push(filter.after.createdAt, filter.after.id);
      where.push(`(created_at, id) < ($${params.length - 1}, $${params.length})`);
    }
    params.push(filter.limit);
    const result = await this.pool.query(
      `SELECT * FROM executions ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return result.rows.map(toExecutionRecord);
  }

  /** The executable view of a skill version (content is immutable once published, so callers may cache it). */
  async findVersion(skillVersionId: string): Promise<ExecutableVersion | null> {
    return (this.versions ??= new SkillVersionReader(pgRows(this.pool))).byId(skillVersionId);
  }

  /**
   * Starts the next attempt if the execution is waiting for one. Returns null when it is not
   * (finished, cancelled, or an attempt is marked running: a worker was lost mid-attempt).
   */
  async startAttempt(id: string, ranForMs?: number): Promise<ExecutionRecord | null> {
    return (await this.startAttempts([{ id, ranForMs }]))[0] ?? null;
  }

  /** startAttempt() for several executions (distinct ids) in one statement; one result per request, in order. */
  async startAttempts(requests: StartRequest[]): Promise<(ExecutionRecord | null)[]> {
    assertDistinct(requests.map((request) => request.id));
    const result = await this.sql('startAttempts', START_ATTEMPTS, [
      requests.map((request) => request.id),
      requests.map((request) => wholeMs(request.ranForMs)),
    ]);
    const byId = new Map(result.rows.map((row) => [row.id as string, row]));
    return requests.map((request) => {
      const row = byId.get(request.id);
      return row ? toExecutionRecord(row) : null;
    });
  }

  /** Ends a failed attempt that will be retried: back to QUEUED with the last error. */
  async endAttemptForRetry(id: string, error: ExecutionError, guard?: AttemptGuard): Promise<boolean> {
    const result = await this.sql(
      'endAttemptForRetry',
      `UPDATE executions SET status = 'QUEUED', attempt_running = false, error = $2
        WHERE id = $1 AND status NOT IN ${TERMINAL} AND ${guardSql(3)}`,
      [id, JSON.stringify(error), ...guardValues(guard)],
    );
    return result.rowCount === 1;
  }

  /** A lost attempt (its worker died): counts as failed and frees the execution for a retry (QUEUED). */
  async releaseLostAttempt(id: string, error: ExecutionError, guard: AttemptGuard): Promise<ExecutionRecord | null> {
    const result = await this.sql(
      'releaseLostAttempt',
      `UPDATE executions SET status = 'QUEUED', attempt_running = false, error = $2
        WHERE id = $1 AND attempt_running AND status NOT IN ${TERMINAL} AND ${guardSql(3)} RETURNING *`,
      [id, JSON.stringify(error), ...guardValues(guard)],
    );
    return result.rows[0] ? toExecutionRecord(result.rows[0]) : null;
  }

  /**
   * Moves to a terminal state unless it already is in one; returns the final record if this call
   * decided it. The same statement announces the end on EXECUTION_FINISHED_CHANNEL, so listeners
   * hear of it exactly when it is committed.
   */
  async finish(
    id: string,
    status: TerminalStatus,
    result: { input?: Record<string, unknown>; output?: Record<string, unknown> | null; error?: ExecutionError | null },
    guard?: AttemptGuard,
  ): Promise<ExecutionRecord | null> {
    return (await this.finishMany([{ id, status, ...result, guard }]))[0] ?? null;
  }

  /**
   * finish() for several executions (distinct ids) in one statement, each under its own guard; one
   * result per request, in order: the final record where that request decided the end, else null.
   */
  async finishMany(requests: FinishRequest[]): Promise<(ExecutionRecord | null)[]> {
    assertDistinct(requests.map((request) => request.id));
    const updated = await this.sql('finishMany', FINISH_EXECUTIONS, [
      requests.map((request) => request.id),
      requests.map((request) => request.status),
      requests.map((request) => (request.output === undefined || request.output === null ? null : JSON.stringify(request.output))),
      requests.map((request) => (request.error ? JSON.stringify(request.error) : null)),
      requests.map((request) => request.guard?.attempt ?? null),
      requests.map((request) => request.guard?.staleForMs ?? null),
      requests.map((request) => wholeMs(request.unstartedMs)),
      requests.map((request) => (request.input === undefined ? null : JSON.stringify(request.input))),
    ]);
    const byId = new Map(updated.rows.map((row) => [row.id as string, row]));
    return requests.map((request) => {
      const row = byId.get(request.id);
      return row ? toExecutionRecord(row) : null;
    });
  }

  /**
   * Renews the heartbeat of the attempts this worker runs. Returns the ids whose attempt is no
   * longer this worker's (taken over after a missed heartbeat, or finished by someone else).
   */
  async heartbeat(attempts: { id: string; attempt: number }[]): Promise<string[]> {
    if (attempts.length === 0) {
      await this.sql('ping', 'SELECT 1', []);
      return [];
    }
    const result = await this.sql(
      'heartbeat',
      `UPDATE executions e SET heartbeat_at = now()
         FROM unnest($1::uuid[], $2::int[]) AS held(id, attempt)
        WHERE e.id = held.id AND e.attempts = held.attempt AND e.attempt_running
        RETURNING e.id`,
      [attempts.map((entry) => entry.id), attempts.map((entry) => entry.attempt)],
    );
    const renewed = new Set(result.rows.map((row) => row.id as string));
    return attempts.filter((entry) => !renewed.has(entry.id)).map((entry) => entry.id);
  }

  /** Records a cancellation request; returns the status it found, or null if already finished/unknown. */
  async requestCancel(id: string): Promise<ExecutionStatus | null> {
    const result = await this.sql(
      'requestCancel',
      `UPDATE executions SET cancel_requested_at = COALESCE(cancel_requested_at, now())
        WHERE id = $1 AND status NOT IN ${TERMINAL} RETURNING status`,
      [id],
    );
    return result.rows[0]?.status ?? null;
  }

  /**
   * Executions with an attempt marked running whose worker stopped sending heartbeats, with whether
   * their skill is idempotent. None within `heartbeatOlderThanMs` of the database server's start.
   */
  async findStale(heartbeatOlderThanMs: number, limit = 100): Promise<{ execution: ExecutionRecord; idempotent: boolean }[]> {
    const result = await this.sql(
      'findStale',
      `SELECT e.*, COALESCE((SELECT (t->>'idempotent')::boolean FROM jsonb_array_elements(v.tools) t WHERE t->>'name' = e.tool LIMIT 1),
                            v.idempotent) AS v_idempotent
         FROM executions e JOIN skill_versions v ON v.id = e.skill_version_id
        WHERE e.status = 'RUNNING' AND e.attempt_running AND e.heartbeat_at < now() - ($1::int * interval '1 millisecond')
          -- Just after a database restart every heartbeat is old: live workers first get time to renew theirs.
          AND pg_postmaster_start_time() < now() - ($1::int * interval '1 millisecond')
        ORDER BY e.heartbeat_at LIMIT $2`,
      [heartbeatOlderThanMs, limit],
    );
    return result.rows.map((row) => ({ execution: toExecutionRecord(row), idempotent: row.v_idempotent === true }));
  }

  /** QUEUED executions older than `olderThanMs` (candidates for re-enqueueing if their job is gone). */
  async findQueuedOlderThan(olderThanMs: number, limit = 100): Promise<ExecutionRecord[]> {
    const result = await this.sql(
      'findQueuedOlderThan',
      `SELECT * FROM executions WHERE status = 'QUEUED' AND created_at < now() - ($1::int * interval '1 millisecond')
        ORDER BY created_at LIMIT $2`,
      [olderThanMs, limit],
    );
    return result.rows.map(toExecutionRecord);
  }

  /** Per version: executions, distinct callers and sessions in the last 7/30/90 days, and the last call. */
  async usage(skillName: string): Promise<VersionUsage[]> {
    const result = await this.sql(
      'usage',
      `SELECT version,
              count(*) FILTER (WHERE created_at > now() - interval '7 days')  AS e7,
              count(DISTINCT caller) FILTER (WHERE created_at > now() - interval '7 days') AS c7,
              count(DISTINCT session_id) FILTER (WHERE created_at > now() - interval '7 days') AS s7,
              count(*) FILTER (WHERE created_at > now() - interval '30 days') AS e30,
              count(DISTINCT caller) FILTER (WHERE created_at > now() - interval '30 days') AS c30,
              count(DISTINCT session_id) FILTER (WHERE created_at > now() - interval '30 days') AS s30,
              count(*) AS e90,
              count(DISTINCT caller) AS c90,
              count(DISTINCT session_id) AS s90,
              max(created_at) AS last_called_at
         FROM executions
        WHERE skill_name = $1 AND purpose = 'call' AND created_at > now() - interval '90 days'
        GROUP BY version`,
      [skillName],
    );
    return result.rows.map((row) => ({
      version: row.version,
      windows: {
        '7d': { executions: Number(row.e7), callers: Number(row.c7), sessions: Number(row.s7) },
        '30d': { executions: Number(row.e30), callers: Number(row.c30), sessions: Number(row.s30) },
        '90d': { executions: Number(row.e90), callers: Number(row.c90), sessions: Number(row.s90) },
      },
      last_called_at: row.last_called_at ? (row.last_called_at as Date).toISOString() : null,
    }));
  }

  /** Last call of each version ever (beyond the 90-day window). */
  async lastCalls(skillName: string): Promise<Map<string, Date>> {
    const result = await this.sql(
      'lastCalls',
      `SELECT version, max(created_at) AS last FROM executions WHERE skill_name = $1 AND purpose = 'call' GROUP BY version`,
      [skillName],
    );
    return new Map(result.rows.map((row) => [row.version as string, row.last as Date]));
  }
}

/**
 * The QUEUED record createMany inserts for `execution` under `id`, built before the insert: what a job enqueued
 * alongside it carries (ExecutionJob.early). Its `createdAt` is the caller's clock; the row's is the database's, a
 * little later. The integration tests compare the two records, so a column the insert starts filling shows up here.
 */
export function queuedRecordOf(id: string, execution: NewExecution, createdAt: Date): ExecutionRecord {
  return {
    id,
    skillVersionId: execution.skillVersionId,
    skillName: execution.skillName,
    version: execution.version,
    purpose: execution.purpose,
    branch: execution.branch ?? 'main',
    traceId: execution.traceId ?? null,
    traceParent: execution.traceParent ?? null,
    tool: execution.tool ?? null,
    status: 'QUEUED',
    input: execution.input,
    output: null,
    error: null,
    attempts: 0,
    maxAttempts: execution.maxAttempts,
    attemptRunning: false,
    warnings: execution.warnings,
    sessionId: execution.sessionId,
    caller: execution.caller,
    idempotencyKey: execution.idempotencyKey,
    requestHash: execution.requestHash,
    cancelRequestedAt: null,
    heartbeatAt: null,
    createdAt,
    startedAt: null,
    finishedAt: null,
    durationMs: null,
  };
}
