import { isDatabaseUnavailable } from '#database/pg-pool.js';
import type { ExecutionError, ExecutionRecord } from './execution-model.js';
import type {
  AttemptGuard,
  ExecutionsRepository,
  FinishRequest,
  NewExecution,
  StartRequest,
  TerminalStatus,
} from './executions.repository.js';
import { GroupCommit } from './group-commit.js';

/** How the durable writes of executions are grouped (see GroupCommit). */
export interface ExecutionWriteBatching {
  /** Most rows one statement writes. */
  maxBatch: number;
  /** Longest a write waits for its statement while others are in flight. */
  windowMs: number;
}

export const DEFAULT_EXECUTION_WRITE_BATCHING: ExecutionWriteBatching = { maxBatch: 64, windowMs: 2 };

/** A connection or server failure concerns the whole flush; any other error may be one row's (e.g. its JSON). */
const isolateRowErrors = (error: unknown) => !isDatabaseUnavailable(error);

/**
 * The three durable writes of an execution (create, attempt start, finish), group-committed: the
 * concurrent calls of one process share one multi-row statement per flush. Each call answers with
 * its own row and whether its own conditions (guards) applied, and only after that statement has
 * committed; a flush that fails fails every call in it, so nothing is acknowledged that is not
 * stored. Same contract as the ExecutionsRepository methods of the same names.
 */
export class BatchedExecutionWrites {
  private readonly creates: GroupCommit<NewExecution, { record: ExecutionRecord; created: boolean }>;
  private readonly awaitedCreates: GroupCommit<NewExecution, { record: ExecutionRecord; created: boolean }>;
  private readonly starts: GroupCommit<StartRequest, ExecutionRecord | null>;
  private readonly finishes: GroupCommit<FinishRequest, ExecutionRecord | null>;

  constructor(repository: ExecutionsRepository, batching: ExecutionWriteBatching = DEFAULT_EXECUTION_WRITE_BATCHING) {
    const options = { ...batching, isolate: isolateRowErrors };
    // Two requests with one idempotency key go in turn, so the second finds the first.
    const idempotencyKeyOf = (execution: NewExecution) =>
      execution.idempotencyKey === null ? null : `${execution.caller}\u0000${execution.idempotencyKey}`;
    this.creates = new GroupCommit((executions) => repository.createMany(executions), { ...options, keyOf: idempotencyKeyOf });
    this.awaitedCreates = new GroupCommit((executions) => repository.createMany(executions, 'unflushed'), {
      ...options,
      keyOf: idempotencyKeyOf,
    });
    this.starts = new GroupCommit((requests) => repository.startAttempts(requests), { ...options, keyOf: (request) => request.id });
    this.finishes = new GroupCommit((requests) => repository.finishMany(requests), { ...options, keyOf: (request) => request.id });
  }

  /** ExecutionsRepository.create, group-committed. */
  create(execution: NewExecution): Promise<{ record: ExecutionRecord; created: boolean }> {
    return this.creates.submit(execution);
  }

  /**
   * create() for a caller who waits for the execution's end before answering: committed without waiting for the
   * disk (ExecutionsRepository.createMany's 'unflushed'), one flush fewer on the way of a synchronous call. The
   * flushed commit of the finish that ends it makes it durable; an answer given before that end must read it with
   * ExecutionsRepository.findByIdFlushed (the row may be gone if the database crashed meanwhile).
   */
  createAwaited(execution: NewExecution): Promise<{ record: ExecutionRecord; created: boolean }> {
    return this.awaitedCreates.submit(execution);
  }

  /** ExecutionsRepository.startAttempt, group-committed. */
  startAttempt(id: string, ranForMs?: number): Promise<ExecutionRecord | null> {
    return this.starts.submit({ id, ranForMs });
  }

  /** ExecutionsRepository.finish, group-committed; the guard is this call's own. */
  finish(
    id: string,
    status: TerminalStatus,
    result: { input?: Record<string, unknown>; output?: Record<string, unknown> | null; error?: ExecutionError | null },
    guard?: AttemptGuard,
  ): Promise<ExecutionRecord | null> {
    return this.finishes.submit({ id, status, ...result, guard });
  }

  /**
   * Ends a first attempt whose start was never written (FinishRequest.unstartedMs), group-committed with
   * the other finishes: start and end in one statement. Null when the execution is no longer untouched.
   */
  finishUnstarted(
    id: string,
    status: TerminalStatus,
    result: { output?: Record<string, unknown> | null; error?: ExecutionError | null },
    unstartedMs: number,
  ): Promise<ExecutionRecord | null> {
    return this.finishes.submit({ id, status, ...result, unstartedMs });
  }
}
