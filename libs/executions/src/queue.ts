/** The BullMQ queue that carries execution ids from the registry to the executor. */
export const EXECUTION_QUEUE = 'skill-executions';
export const EXECUTION_JOB = 'execute';

/** The job payload: only the id; the database owns the execution's state. */
export interface ExecutionJob {
  executionId: string;
}

/** Redis pub/sub channel on which cancellations of running executions are announced. */
export function cancelChannel(prefix: string): string {
  return `${prefix}:executions:cancel`;
}

/** Redis stream of lifecycle moves, for any service that wants to follow the catalog. */
export function lifecycleStream(prefix: string): string {
  return `${prefix}:lifecycle:events`;
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
