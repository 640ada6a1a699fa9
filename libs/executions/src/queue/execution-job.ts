import type { ExecutionRecord } from '../execution-model.js';

/** The BullMQ queue that carries execution ids from the registry to the executor. */
export const EXECUTION_QUEUE = 'skill-executions';
export const EXECUTION_JOB = 'execute';

/**
 * The job payload: the id (the database owns the execution's state) and, on the job the registry enqueues
 * for a new execution, the QUEUED row it has just committed (`queued`, JSON), so that the executor's first
 * attempt can start without reading it back. Any other delivery (a retry, a stalled job, a takeover, a
 * reconciliation) reads the row; so does any payload that does not check out (recordFromSnapshot).
 */
export interface ExecutionJob {
  executionId: string;
  queued?: Record<string, unknown>;
  /**
   * Enqueued alongside the insert of its row, not after its commit (a new execution without an idempotency key, to
   * save the commit's round trip on the way of a call): a pickup may come before the row is there. The executor
   * then waits for it (bounded) before it concludes there is none, which happens when the insert failed (and its
   * caller was answered with the error).
   */
  early?: true;
}

/** Inputs larger than this are not copied into the job (they are read from the row instead). */
export const QUEUED_SNAPSHOT_MAX_INPUT_BYTES = 16 * 1024;

/** The `queued` snapshot of a just-created execution, or undefined when it is not QUEUED or its input is large. */
export function queuedSnapshotOf(record: ExecutionRecord): Record<string, unknown> | undefined {
  if (record.status !== 'QUEUED' || record.attempts !== 0 || record.attemptRunning) return undefined;
  if (Buffer.byteLength(JSON.stringify(record.input)) > QUEUED_SNAPSHOT_MAX_INPUT_BYTES) return undefined;
  return JSON.parse(JSON.stringify(record)) as Record<string, unknown>;
}

const SNAPSHOT_DATES = ['cancelRequestedAt', 'heartbeatAt', 'createdAt', 'startedAt', 'finishedAt'] as const;

/**
 * The record a job's `queued` snapshot describes, or null when there is none or it is not a QUEUED
 * execution with this id that has never run (the caller then reads the row).
 */
export function recordFromSnapshot(executionId: string, snapshot: unknown): ExecutionRecord | null {
  if (typeof snapshot !== 'object' || snapshot === null || Array.isArray(snapshot)) return null;
  const value = snapshot as Record<string, unknown>;
  const plainObject = (candidate: unknown) => typeof candidate === 'object' && candidate !== null && !Array.isArray(candidate);
  if (value.id !== executionId || value.status !== 'QUEUED' || value.attempts !== 0 || value.attemptRunning !== false) return null;
  if (value.cancelRequestedAt !== null || !plainObject(value.input) || typeof value.skillVersionId !== 'string') return null;
  if (typeof value.createdAt !== 'string' || Number.isNaN(Date.parse(value.createdAt))) return null;
  const record = { ...value } as Record<string, unknown>;
  for (const key of SNAPSHOT_DATES) record[key] = typeof value[key] === 'string' ? new Date(value[key] as string) : null;
  return record as unknown as ExecutionRecord;
}

/**
 * Job options every producer uses: job id = execution id, so enqueueing twice is harmless. Retries
 * are decided by the executor from the execution row (max_attempts); BullMQ only schedules them, so
 * its own attempt limit is just a ceiling.
 */
export function executionJobOptions(executionId: string) {
  return {
    jobId: executionId,
    attempts: 100,
    backoff: { type: 'execution' },
    removeOnComplete: { age: 3600, count: 10_000 },
    removeOnFail: { age: 24 * 3600 },
  };
}

/**
 * Options of the job that carries the next attempt of an execution taken over from a dead worker
 * (its own job is still active in BullMQ until the lock lapses): one job id per lost attempt, so a
 * takeover decided twice enqueues once.
 */
export function takeoverJobOptions(executionId: string, lostAttempt: number) {
  return { ...executionJobOptions(executionId), jobId: `${executionId}-takeover-${lostAttempt}` };
}
