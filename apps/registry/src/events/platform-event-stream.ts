import { Inject, Injectable } from '@nestjs/common';
import { PlatformEventLog, type PlatformEvent, type RedisConnection, type StreamReads } from '#executions/index.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { EXECUTIONS_REDIS, StreamReaders } from '../executions/execution-infrastructure.js';
import { QueueUnavailable } from '../problem/domain-errors.js';

/** How long one blocking read waits; a quiet stream yields a heartbeat (null) this often. */
const BLOCK_MS = 10_000;

/**
 * Follows the platform's event stream from Redis (any replica serves any subscriber): the events after a
 * position, then live ones, for as long as the subscriber stays.
 */
@Injectable()
export class PlatformEventStream {
  private readonly log: PlatformEventLog;

  constructor(
    @Inject(EXECUTIONS_REDIS) private readonly redis: RedisConnection,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly readers: StreamReaders,
  ) {
    this.log = new PlatformEventLog(redis, config.QUEUE_PREFIX, config.EVENTS_HISTORY_MAX);
  }

  /**
   * The events after `from` (undefined: from now on; '0': from the oldest kept) that `accept` lets through,
   * then the live ones; `null` after every BLOCK_MS without one (a heartbeat: the caller writes a keep-alive).
   * Resolves once the position is fixed (so every event appended after that is delivered), or throws
   * QueueUnavailable at once when Redis is away. The stream ends when `signal` aborts. It counts against `caller`'s
   * share of the streams (StreamReaders).
   */
  async follow(
    from: string | undefined,
    accept: (event: PlatformEvent) => boolean,
    signal: AbortSignal,
    caller: string,
  ): Promise<AsyncGenerator<PlatformEvent | null>> {
    // The events live in Redis: without it, say so at once rather than hold the request open.
    if (this.redis.status !== 'ready') throw new QueueUnavailable(`connection ${this.redis.status}`, 'Events cannot be read right now');
    let after = from;
    if (after === undefined) {
      try {
        after = await this.log.lastId();
      } catch (error) {
        throw new QueueUnavailable((error as Error).message, 'Events cannot be read right now');
      }
    }
    // Taken here, not in the generator: a stream over the bound is refused before the caller answers 200. Given back
    // when the subscriber leaves, even if the generator is never started.
    const taken = this.readers.take(caller);
    signal.addEventListener('abort', taken.release, { once: true });
    return this.read(taken, after, accept, signal);
  }

  private async *read(
    { reads, release }: { reads: StreamReads; release: () => void },
    from: string,
    accept: (event: PlatformEvent) => boolean,
    signal: AbortSignal,
  ): AsyncGenerator<PlatformEvent | null> {
    try {
      let after = from;
      let blockMs = 0; // what exists is read at once
      while (!signal.aborted) {
        const batch = await this.log.read(after, blockMs, reads).catch((error: Error) => {
          if (signal.aborted) return [];
          throw error;
        });
        for (const event of batch) {
          after = event.id;
          if (accept(event)) yield event;
        }
        if (batch.length === 0 && blockMs > 0 && !signal.aborted) yield null;
        blockMs = batch.length > 0 ? 0 : BLOCK_MS;
      }
    } finally {
      signal.removeEventListener('abort', release);
      release();
    }
  }
}
