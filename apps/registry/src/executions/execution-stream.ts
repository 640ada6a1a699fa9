import { Inject, Injectable } from '@nestjs/common';
import {
  ExecutionEventLog,
  ExecutionsRepository,
  TERMINAL_EVENT_TYPES,
  isStreamId,
  isTerminal,
  type ExecutionEvent,
  type ExecutionRecord,
  type RedisConnection,
  type StoredExecutionEvent,
} from '#executions/index.js';
import { ExecutionNotFound, QueueUnavailable } from '../problem/domain-errors.js';
import { EXECUTIONS_REDIS, StreamReaders } from './execution-infrastructure.js';

const BLOCK_MS = 5000;

/**
 * Where a client resuming an execution's stream (SSE Last-Event-ID, gRPC last_event_id) goes on from: after the event it
 * names, or from the start when it names none a stream can hold (a client's mistake, not a 500).
 */
export function resumePosition(lastEventId: string | undefined): string {
  return lastEventId && /^\d+-\d+$/.test(lastEventId) && isStreamId(lastEventId) ? lastEventId : '0';
}

/**
 * Follows one execution's events from Redis (any replica can stream any execution), from the
 * beginning or after `lastEventId`, until the terminal event.
 */
@Injectable()
export class ExecutionStream {
  constructor(
    private readonly events: ExecutionEventLog,
    private readonly executions: ExecutionsRepository,
    @Inject(EXECUTIONS_REDIS) private readonly redis: RedisConnection,
    private readonly readers: StreamReaders,
  ) {}

  /** The events after `lastEventId` until the terminal one, for `caller` (whose share of streams it counts against). */
  async *follow(executionId: string, lastEventId: string, signal: AbortSignal, caller: string): AsyncGenerator<StoredExecutionEvent> {
    const execution = await this.executions.findById(executionId);
    if (!execution) throw new ExecutionNotFound(executionId);
    // The events live in Redis: without it, say so at once rather than hold the request open.
    if (this.redis.status !== 'ready')
      throw new QueueUnavailable(`connection ${this.redis.status}`, 'Execution events cannot be read right now');
    // A bounded number of followers, whose blocking reads share connections (StreamReaders).
    const { reads, release } = this.readers.take(caller);
    const stop = release;
    signal.addEventListener('abort', stop, { once: true });
    let after = lastEventId;
    let blockMs = 0; // the first read returns what exists at once
    try {
      while (!signal.aborted) {
        const batch = await this.events.read(executionId, after, blockMs, reads).catch((error: Error) => {
          if (signal.aborted) return [];
          throw error;
        });
        blockMs = BLOCK_MS;
        for (const stored of batch) {
          after = stored.id;
          yield stored;
          if (TERMINAL_EVENT_TYPES.has(stored.event.type)) return;
        }
        if (batch.length > 0) continue;
        // Nothing new: the database decides whether it is over (the stream may have expired).
        const latest = await this.executions.findById(executionId);
        if (latest && isTerminal(latest.status)) {
          if (after === '0') yield { id: '0-1', event: terminalEventOf(latest) };
          return;
        }
      }
    } finally {
      signal.removeEventListener('abort', stop);
      release();
    }
  }
}

/** The terminal event of a finished execution whose stream is gone. */
function terminalEventOf(execution: ExecutionRecord): ExecutionEvent {
  const at = (execution.finishedAt ?? execution.createdAt).toISOString();
  if (execution.status === 'SUCCEEDED')
    return { type: 'succeeded', at, attempt: execution.attempts, duration_ms: execution.durationMs ?? 0 };
  if (execution.status === 'CANCELLED') return { type: 'cancelled', at, reason: execution.error?.message ?? 'cancelled' };
  return {
    type: 'failed',
    at,
    attempt: execution.attempts,
    error: execution.error ?? { code: 'HANDLER_ERROR', message: 'failed', details: {} },
  };
}
