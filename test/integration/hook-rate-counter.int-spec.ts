import { Redis } from 'ioredis';
import { RedisRateCounter } from '#hooks/index.js';

/** The rate_limit hooks' counter on the real Redis: one count per key across clients (replicas), expiring with its window. */
describe('RedisRateCounter', () => {
  const prefix = `test-rate-${process.pid}-${Date.now()}`;
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const first = new Redis(url);
  const second = new Redis(url);

  afterAll(async () => {
    const keys = await first.keys(`${prefix}:*`);
    if (keys.length > 0) await first.del(...keys);
    first.disconnect();
    second.disconnect();
  });

  it('counts hits of one key across connections, and starts again once the window has passed', async () => {
    const replicaA = new RedisRateCounter(first, prefix);
    const replicaB = new RedisRateCounter(second, prefix);
    expect(await replicaA.hit('h:skill:bot', 1)).toEqual({ count: 1, resetSeconds: 1 });
    expect((await replicaB.hit('h:skill:bot', 1)).count).toBe(2);
    expect((await replicaA.hit('h:skill:other', 1)).count).toBe(1);
    expect(await first.ttl(`${prefix}:hooks:rate:h:skill:bot`)).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await replicaB.hit('h:skill:bot', 1)).count).toBe(1);
  });
});
