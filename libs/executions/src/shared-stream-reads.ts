import { randomUUID } from 'node:crypto';
import type { RedisConnection } from './redis-connection.js';

/** A stream entry as XREAD returns it: its id and its field/value list. */
export type StreamEntry = [id: string, fields: string[]];

/** One follower's reads of Redis streams (SharedStreamReads.follower). */
export interface StreamReads {
  /**
   * XREAD of one stream: up to `count` entries after `afterId` (`0`: from the oldest), waiting up to `blockMs` for one
   * (0: answers at once). Resolves with none when the wait runs out, or when the follower is released meanwhile.
   */
  read(key: string, afterId: string, count: number, blockMs: number): Promise<StreamEntry[]>;
}

export interface SharedStreamReadsOptions {
  /** Opens a connection that waits for Redis while it is away (offline queue on, retried for ever). */
  open: () => RedisConnection;
  /** Followers whose blocking reads share one connection. */
  followersPerConnection: number;
  /**
   * Prefix of each connection's wake-up stream key. On a Redis Cluster it must carry the hash tag of the streams
   * followed (one XREAD names them all together, so they must be in one slot, as every key under QUEUE_PREFIX is).
   */
  keyPrefix: string;
}

/** How long one shared blocking read waits at most before it is issued again (a follower's own wait is its timer). */
const LANE_BLOCK_MS = 10_000;
/** A stream id as XREAD takes it: `<ms>-<seq>` or `<ms>` (each a 64-bit unsigned integer). */
const STREAM_ID = /^(\d{1,20})(?:-(\d{1,20}))?$/;
const UINT64_MAX = 2n ** 64n - 1n;

/** A stream id as two numbers to compare, or null when XREAD would refuse it (and fail every stream read with it). */
function parseStreamId(id: string): [bigint, bigint] | null {
  const match = STREAM_ID.exec(id);
  if (!match) return null;
  const ms = BigInt(match[1] as string);
  const seq = BigInt(match[2] ?? '0');
  return ms > UINT64_MAX || seq > UINT64_MAX ? null : [ms, seq];
}

/** XREAD of one stream without waiting: up to `count` entries after `afterId`, none when it does not exist. */
export async function readStreamNow(redis: RedisConnection, key: string, afterId: string, count: number): Promise<StreamEntry[]> {
  const reply = (await redis.xread('COUNT', count, 'STREAMS', key, afterId)) as [string, StreamEntry[]][] | null;
  return reply?.[0]?.[1] ?? [];
}

/** Whether `id` is a stream id XREAD takes (`<ms>-<seq>` or `<ms>`, each within 64 bits). */
export function isStreamId(id: string): boolean {
  return parseStreamId(id) !== null;
}

function compareIds(a: [bigint, bigint], b: [bigint, bigint]): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] === b[1] ? 0 : a[1] < b[1] ? -1 : 1;
}

interface Waiter {
  key: string;
  afterId: string;
  after: [bigint, bigint];
  count: number;
  follower: number;
  settle: (entries: StreamEntry[]) => void;
  fail: (error: Error) => void;
}

/**
 * Blocking reads of many followers of Redis streams (an execution's events, the platform's) over few connections.
 * XREAD BLOCK holds its connection until it answers, so each follower once had a connection of its own: a registry
 * following a thousand streams held a thousand of Redis's 10,000 clients (shared by every process of the platform) and
 * two descriptors each. Here up to `followersPerConnection` followers share one: their waiting reads go out as one
 * XREAD naming every stream they wait on, each from the oldest position one of them asked for; the entries that come
 * back go to the readers waiting for them, each after its own position. A read that arrives while the shared one waits
 * wakes it (an entry on the connection's own wake-up stream, named in the same XREAD) so that it is issued again with
 * the new stream. Reads that do not wait share one more connection. Hand-written: no Redis client multiplexes
 * blocking reads.
 */
export class SharedStreamReads {
  private readonly lanes = new Set<ReadLane>();
  private commands: RedisConnection | null = null;
  private nextFollower = 1;
  private closed = false;

  constructor(private readonly options: SharedStreamReadsOptions) {
    if (options.followersPerConnection < 1) throw new Error('followersPerConnection must be at least 1');
  }

  /** Connections open now (the non-blocking one included), for tests and metrics. */
  get connections(): number {
    return [...this.lanes].filter((lane) => lane.connected).length + (this.commands ? 1 : 0);
  }

  /** A follower's reads, on a connection shared with at most followersPerConnection − 1 others; `release` when it stops. */
  follower(): { reads: StreamReads; release: () => void } {
    if (this.closed) throw new Error('stream reads are closed');
    const id = this.nextFollower++;
    const lane = [...this.lanes].find((candidate) => candidate.followers < this.options.followersPerConnection) ?? this.newLane();
    lane.followers++;
    let released = false;
    const reads: StreamReads = {
      read: (key, afterId, count, blockMs) => {
        if (released) return Promise.resolve([]);
        const after = parseStreamId(afterId);
        if (!after) return Promise.reject(new Error(`'${afterId.slice(0, 60)}' is not a stream id`));
        if (blockMs <= 0) return readStreamNow(this.commandConnection(), key, afterId, count);
        return lane.wait({ key, afterId, after, count, follower: id }, blockMs);
      },
    };
    return {
      reads,
      release: () => {
        if (released) return;
        released = true;
        lane.drop(id);
        if (--lane.followers === 0) {
          this.lanes.delete(lane);
          lane.close();
        }
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const lane of this.lanes) lane.close();
    this.lanes.clear();
    this.commands?.disconnect();
    this.commands = null;
  }

  private newLane(): ReadLane {
    const lane = new ReadLane(this.options.open, `${this.options.keyPrefix}:stream-reads:${randomUUID()}:wake`, () =>
      this.commandConnection(),
    );
    this.lanes.add(lane);
    return lane;
  }

  private commandConnection(): RedisConnection {
    return (this.commands ??= this.options.open());
  }
}

/** One shared blocking connection and the reads waiting on it. */
class ReadLane {
  followers = 0;
  private readonly waiting = new Map<string, Set<Waiter>>();
  private connection: RedisConnection | null = null;
  /** Whether the shared read is being issued again and again (while anyone waits). */
  private running = false;
  /** What the XREAD in flight names: each stream with the position it reads after; null when none is in flight. */
  private inFlight: Map<string, [bigint, bigint]> | null = null;
  private wakeId = '0-0';
  /** A wake-up was sent that the read in flight has not answered yet (one is enough). */
  private waking = false;
  /** Whether the wake-up stream was ever written (it expires by itself; removed when the lane closes). */
  private woken = false;
  private closed = false;

  constructor(
    private readonly open: () => RedisConnection,
    private readonly wakeKey: string,
    private readonly commands: () => RedisConnection,
  ) {}

  get connected(): boolean {
    return this.connection !== null;
  }

  wait(request: Omit<Waiter, 'settle' | 'fail'>, blockMs: number): Promise<StreamEntry[]> {
    return new Promise((resolve, reject) => {
      const set = this.waiting.get(request.key) ?? new Set<Waiter>();
      const timer = setTimeout(() => waiter.settle([]), blockMs);
      const leave = () => {
        clearTimeout(timer);
        set.delete(waiter);
        if (set.size === 0 && this.waiting.get(request.key) === set) this.waiting.delete(request.key);
      };
      const waiter: Waiter = {
        ...request,
        settle: (entries) => {
          leave();
          resolve(entries);
        },
        fail: (error) => {
          leave();
          reject(error);
        },
      };
      set.add(waiter);
      this.waiting.set(request.key, set);
      // Not running: start. Between two reads: the next one names this stream. During one: wake it unless it reads
      // this stream from this position or before.
      if (!this.running) void this.run();
      else if (this.inFlight) {
        const covered = this.inFlight.get(request.key);
        if (!covered || compareIds(covered, request.after) > 0) this.wake();
      }
    });
  }

  /** Settles a released follower's waiting reads with nothing. */
  drop(follower: number): void {
    for (const set of [...this.waiting.values()]) for (const waiter of [...set]) if (waiter.follower === follower) waiter.settle([]);
  }

  close(): void {
    this.closed = true;
    for (const set of [...this.waiting.values()]) for (const waiter of [...set]) waiter.settle([]);
    this.connection?.disconnect();
    this.connection = null;
    if (this.woken)
      void this.commands()
        .del(this.wakeKey)
        .catch(() => undefined);
  }

  /** Issues the shared read while anyone waits; each answer goes to its readers, then it is issued again. */
  private async run(): Promise<void> {
    this.running = true;
    try {
      for (;;) {
        // The readers of this turn (a burst of followers, those just answered asking again) go out in one read.
        await new Promise((resolve) => setImmediate(resolve));
        if (this.closed || this.waiting.size === 0) return;
        const keys: string[] = [];
        const ids: string[] = [];
        const issued = new Map<string, [bigint, bigint]>();
        for (const [key, set] of this.waiting) {
          let oldest: Waiter | null = null;
          for (const waiter of set) if (!oldest || compareIds(waiter.after, oldest.after) < 0) oldest = waiter;
          keys.push(key);
          ids.push((oldest as Waiter).afterId);
          issued.set(key, (oldest as Waiter).after);
        }
        this.inFlight = issued;
        const connection = (this.connection ??= this.open());
        let reply: [string, StreamEntry[]][] | null;
        try {
          reply = (await connection.xread('COUNT', 100, 'BLOCK', LANE_BLOCK_MS, 'STREAMS', ...keys, this.wakeKey, ...ids, this.wakeId)) as
            [string, StreamEntry[]][] | null;
        } catch (error) {
          this.inFlight = null;
          this.waking = false;
          if (this.closed) return;
          // A refusal of the shared read (not Redis being away: the connection waits for it) fails the reads it
          // carried, as it would have failed each of them on a connection of its own.
          for (const key of keys) for (const waiter of [...(this.waiting.get(key) ?? [])]) waiter.fail(error as Error);
          continue;
        }
        this.inFlight = null;
        this.waking = false;
        for (const [key, entries] of reply ?? []) {
          if (key === this.wakeKey) {
            this.wakeId = entries.at(-1)?.[0] ?? this.wakeId;
            continue;
          }
          for (const waiter of [...(this.waiting.get(key) ?? [])]) {
            const fresh = entries
              .filter(([id]) => compareIds(parseStreamId(id) as [bigint, bigint], waiter.after) > 0)
              .slice(0, waiter.count);
            if (fresh.length > 0) waiter.settle(fresh);
          }
        }
      }
    } finally {
      this.running = false;
      this.inFlight = null;
    }
  }

  /** Ends the shared read in flight, so that it is issued again naming the stream just asked for. */
  private wake(): void {
    if (this.waking) return;
    this.waking = true;
    this.woken = true;
    void this.commands()
      .multi()
      .xadd(this.wakeKey, 'MAXLEN', '1', '*', 'wake', '1')
      .pexpire(this.wakeKey, LANE_BLOCK_MS * 6)
      .exec()
      .catch(() => undefined);
  }
}
