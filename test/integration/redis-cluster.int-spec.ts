import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Cluster } from 'ioredis';
import { redisTopologyOf, type RedisTopology } from '#contracts/index.js';
import {
  EXECUTION_QUEUE,
  ExecutionEventLog,
  ExecutionQueue,
  MAX_LOG_EVENTS_PER_EXECUTION,
  cancelChannel,
  executionLogCountKey,
  lifecycleStream,
  platformEventsStream,
  openRedis,
  SharedStreamReads,
  type ExecutionJob,
  type RedisConnection,
} from '#executions/index.js';
import { RedisRateCounter } from '#hooks/index.js';
import { ensureScalePrograms, startRedisCluster, type RedisCluster } from '../../drills/scale/index.mjs';

/**
 * Every Redis command of ours on a real Redis Cluster (3 masters + 3 replicas on private loopback ports,
 * started here): none crosses slots (a CROSSSLOT error would fail it), because every key lives in the
 * hash-tagged prefix's slot.
 */
describe('on a Redis Cluster', () => {
  let dir: string;
  let cluster: RedisCluster;
  let topology: RedisTopology;
  let redis: RedisConnection;
  const prefix = `{test-cluster-${process.pid}}`;

  beforeAll(async () => {
    ensureScalePrograms();
    dir = await mkdtemp(path.join(os.tmpdir(), 'redis-cluster-'));
    cluster = await startRedisCluster(dir);
    topology = redisTopologyOf({ REDIS_URL: 'redis://unused:1', REDIS_CLUSTER_NODES: cluster.seeds, QUEUE_PREFIX: prefix });
    redis = openRedis(topology, { maxRetriesPerRequest: 3 });
  }, 60_000);

  afterAll(async () => {
    redis?.disconnect();
    await cluster?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const subject = (executionId: string) => ({ executionId, skill: 's', sessionId: null });

  it('is a cluster connection', () => {
    expect(redis).toBeInstanceOf(Cluster);
  });

  it('appends, caps and reads execution events with the multi-key scripts (stream and platform stream, stream and counter)', async () => {
    const log = new ExecutionEventLog(redis, prefix);
    const id = randomUUID();
    const at = new Date().toISOString();
    await log.append(subject(id), { type: 'queued', at, skill: 's', version: '1.0.0' });
    await log.append(subject(id), [
      { type: 'started', at, attempt: 1 },
      { type: 'succeeded', at, attempt: 1, duration_ms: 1 },
    ]);
    const write = log.logWriter(randomUUID());
    const logged = randomUUID();
    const writeLogged = log.logWriter(logged);
    for (let i = 0; i < MAX_LOG_EVENTS_PER_EXECUTION + 5; i++) await writeLogged('info', `line ${i}`);
    await write('info', 'one line');
    expect((await log.read(id, '0', 0)).map((stored) => stored.event.type)).toEqual(['queued', 'started', 'succeeded']);
    const lines = [];
    for (let after = '0'; ;) {
      const batch = await log.read(logged, after, 0);
      if (batch.length === 0) break;
      lines.push(...batch);
      after = batch.at(-1)!.id;
    }
    expect(lines).toHaveLength(MAX_LOG_EVENTS_PER_EXECUTION + 1);
    expect(lines.at(-1)?.event).toMatchObject({ type: 'log', level: 'warning', message: expect.stringContaining('Log limit reached') });
    expect(await redis.ttl(log.key(id))).toBeGreaterThan(0);
  });

  it("shares blocking reads of several execution streams in one XREAD (its wake-up stream too): the prefix's one slot", async () => {
    const shared = new SharedStreamReads({
      open: () => openRedis(topology, { maxRetriesPerRequest: null }),
      followersPerConnection: 10,
      keyPrefix: prefix,
    });
    const log = new ExecutionEventLog(redis, prefix);
    const pause = () => new Promise((resolve) => setTimeout(resolve, 200));
    try {
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      const waits = ids.slice(0, 2).map((id) => log.read(id, '0', 10_000, shared.follower().reads));
      await pause();
      // One more follower once the shared read is out: it is woken, and issued again naming three streams.
      waits.push(log.read(ids[2] as string, '0', 10_000, shared.follower().reads));
      await pause();
      for (const id of ids) await log.append(subject(id), { type: 'queued', at: new Date().toISOString(), skill: 's', version: '1.0.0' });
      const started = performance.now();
      expect((await Promise.all(waits)).map((batch) => batch.map((stored) => stored.event.type))).toEqual([
        ['queued'],
        ['queued'],
        ['queued'],
      ]);
      expect(performance.now() - started).toBeLessThan(5000);
    } finally {
      await shared.close();
    }
  });

  it('puts every key of ours in the slot of the prefix: queue, execution streams and counters, platform and lifecycle streams, hook rates', async () => {
    const log = new ExecutionEventLog(redis, prefix);
    const id = randomUUID();
    await log.append(subject(id), { type: 'queued', at: new Date().toISOString(), skill: 's', version: '1.0.0' });
    await new RedisRateCounter(redis, prefix).hit('hook:s:caller', 60);
    const keys = [
      log.key(id),
      executionLogCountKey(prefix, id),
      platformEventsStream(prefix),
      lifecycleStream(prefix),
      `${prefix}:hooks:rate:hook:s:caller`,
      `${prefix}:${EXECUTION_QUEUE}:wait`,
    ];
    const slots = await Promise.all(keys.map((key) => (redis as Cluster).cluster('KEYSLOT', key) as Promise<number>));
    expect(new Set(slots).size).toBe(1);
    expect(await redis.exists(log.key(id), platformEventsStream(prefix), `${prefix}:hooks:rate:hook:s:caller`)).toBe(3);
  });

  it('enqueues, re-enqueues and drops jobs on the hash-tagged prefix, and carries cancellations to a subscriber', async () => {
    const queue = ExecutionQueue.connect(topology, prefix);
    const inspect = new Queue<ExecutionJob>(EXECUTION_QUEUE, { connection: openRedis(topology, { maxRetriesPerRequest: null }), prefix });
    const subscriber = openRedis(topology, { maxRetriesPerRequest: null });
    try {
      const id = randomUUID();
      await queue.enqueue(id);
      await queue.enqueue(id);
      expect((await inspect.getJob(id))?.data).toEqual({ executionId: id });
      expect(await queue.enqueueIfGone(id)).toBeNull();
      await inspect.remove(id);
      expect(await queue.enqueueIfGone(id)).toBe('missing');
      await queue.remove(id);
      expect(await inspect.getJob(id)).toBeUndefined();
      expect(await queue.jobCounts()).toMatchObject({ waiting: 0 });

      const heard = new Promise<string>((resolve) => subscriber.on('message', (_channel: string, message: string) => resolve(message)));
      await subscriber.subscribe(cancelChannel(prefix));
      await queue.announceCancel(id);
      expect(await heard).toBe(id);
      await redis.xadd(lifecycleStream(prefix), '*', 'event', '{}');
      expect(await redis.xlen(lifecycleStream(prefix))).toBe(1);
    } finally {
      subscriber.disconnect();
      await inspect.obliterate({ force: true });
      await inspect.close();
      await queue.close();
    }
  });
});
