import type { Redis } from 'ioredis';
import type { ExecutionError, ExecutionStatus } from './execution-model.js';

/** The typed events of one execution, in the order they happen. */
export type ExecutionEvent =
  | { type: 'queued'; at: string; skill: string; version: string }
  | { type: 'started'; at: string; attempt: number }
  | { type: 'attempt_failed'; at: string; attempt: number; error: ExecutionError; next_delay_ms: number }
  | { type: 'tool_invoked'; at: string; tool_id: string }
  | { type: 'tool_completed'; at: string; tool_id: string; duration_ms: number; ok: boolean; error?: { code: string; message: string } }
  | { type: 'succeeded'; at: string; attempt: number; duration_ms: number }
  | { type: 'failed'; at: string; attempt: number; error: ExecutionError }
  | { type: 'cancelled'; at: string; reason: string };

export type ExecutionEventType = ExecutionEvent['type'];

export const TERMINAL_EVENT_TYPES: ReadonlySet<ExecutionEventType> = new Set(['succeeded', 'failed', 'cancelled']);

export function terminalStatusOf(event: ExecutionEvent): ExecutionStatus | null {
  if (event.type === 'succeeded') return 'SUCCEEDED';
  if (event.type === 'failed') return 'FAILED';
  if (event.type === 'cancelled') return 'CANCELLED';
  return null;
}

/** A stored event with its position in the execution's stream. */
export interface StoredExecutionEvent {
  id: string;
  event: ExecutionEvent;
}

/** How long an execution's event stream is kept after it ends. */
const FINISHED_STREAM_TTL_SECONDS = 7 * 24 * 3600;

/**
 * Execution events on Redis Streams: one stream per execution, so any registry replica can replay
 * an execution from the beginning and follow it live.
 */
export class ExecutionEventLog {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  key(executionId: string): string {
    return `${this.prefix}:execution:${executionId}:events`;
  }

  /**
   * Appends events, in order, in one round trip; after a terminal event the stream expires in a
   * week. (Requests waiting for the end are woken by Postgres, see EXECUTION_FINISHED_CHANNEL.)
   * Returns the id of the last event.
   */
  async append(executionId: string, events: ExecutionEvent | ExecutionEvent[]): Promise<string> {
    const key = this.key(executionId);
    const list = Array.isArray(events) ? events : [events];
    const terminal = list.some((event) => TERMINAL_EVENT_TYPES.has(event.type));
    if (list.length === 1 && !terminal) return (await this.redis.xadd(key, '*', 'event', JSON.stringify(list[0]))) as string;
    const transaction = this.redis.multi();
    for (const event of list) transaction.xadd(key, '*', 'event', JSON.stringify(event));
    if (terminal) transaction.expire(key, FINISHED_STREAM_TTL_SECONDS);
    const results = (await transaction.exec()) ?? [];
    const failed = results.find(([error]) => error);
    if (failed || results.length === 0) throw failed?.[0] ?? new Error('transaction aborted');
    return results[list.length - 1]?.[1] as string;
  }

  /** Events after `afterId` ('0' = from the beginning), waiting up to `blockMs` for new ones (0 = do not wait). */
  async read(executionId: string, afterId: string, blockMs: number, client: Redis = this.redis): Promise<StoredExecutionEvent[]> {
    const key = this.key(executionId);
    const reply =
      blockMs > 0
        ? await client.xread('COUNT', 100, 'BLOCK', blockMs, 'STREAMS', key, afterId)
        : await client.xread('COUNT', 100, 'STREAMS', key, afterId);
    if (!reply) return [];
    const [, entries] = reply[0] as [string, [string, string[]][]];
    return entries.map(([id, fields]) => ({ id, event: JSON.parse(fields[1] as string) as ExecutionEvent }));
  }
}
