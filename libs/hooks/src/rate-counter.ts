/** What the counter needs of a Redis connection (one server or a cluster): running a script. */
interface ScriptRunner {
  eval(script: string, numberOfKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/** Counts hits in fixed windows, shared by every replica. */
export interface RateCounter {
  /**
   * Counts one hit under `key` in its current window (which starts at the first hit and lasts `windowSeconds`):
   * the hits so far, and the seconds left in it.
   */
  hit(key: string, windowSeconds: number): Promise<{ count: number; resetSeconds: number }>;
}

/** KEYS: the window's counter. ARGV: the window in seconds. One key, so it runs on any Redis Cluster node. */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('TTL', KEYS[1])}`;

/**
 * The rate_limit action's counter on Redis: one key per hook, skill and caller (`<prefix>:hooks:rate:<hook>:<skill>:<caller>`,
 * named like every other key of the prefix, so a hash-tagged prefix keeps them in its slot), incremented and, at
 * a window's first hit, given the window as its expiry, in one script.
 */
export class RedisRateCounter implements RateCounter {
  constructor(
    private readonly redis: ScriptRunner,
    private readonly prefix: string,
  ) {}

  async hit(key: string, windowSeconds: number): Promise<{ count: number; resetSeconds: number }> {
    const [count, ttl] = (await this.redis.eval(HIT_SCRIPT, 1, `${this.prefix}:hooks:rate:${key}`, windowSeconds)) as [number, number];
    return { count, resetSeconds: ttl > 0 ? ttl : windowSeconds };
  }
}
