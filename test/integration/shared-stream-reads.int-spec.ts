import fc from 'fast-check';
import { Redis } from 'ioredis';
import { SharedStreamReads, type StreamEntry } from '#executions/index.js';
import { deleteRedisKeys } from '../../bench/support/redis-cleanup.mjs';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Followers of Redis streams whose blocking reads share connections (SharedStreamReads), on the machine's Redis:
 * before, each follower held a connection of its own for its XREAD BLOCK.
 */
describe('shared blocking reads of Redis streams', () => {
  const prefix = `test-shared-reads-${process.pid}-${Date.now()}`;
  const redis = new Redis(REDIS_URL);
  const opened: Redis[] = [];
  let shared: SharedStreamReads;
  const key = (name: string) => `${prefix}:stream:${name}`;
  const texts = (entries: StreamEntry[]) => entries.map(([, fields]) => fields[1]);

  /** Shared reads on connections that wait for Redis, as the registry opens them (closed at the end). */
  const sharedReads = (followersPerConnection: number) =>
    new SharedStreamReads({
      open: () => {
        const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
        opened.push(connection);
        return connection;
      },
      followersPerConnection,
      keyPrefix: prefix,
    });

  beforeEach(() => {
    shared = sharedReads(50);
  });

  afterEach(async () => {
    await shared.close();
  });

  afterAll(async () => {
    for (const connection of opened) connection.disconnect();
    await deleteRedisKeys(REDIS_URL, prefix);
    redis.disconnect();
  });

  it('serves 120 waiting followers on 3 connections, each its own entries', async () => {
    const followers = Array.from({ length: 120 }, () => shared.follower());
    const waits = followers.map(({ reads }, index) => reads.read(key(`many-${index}`), '0', 100, 10_000));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    for (let index = 0; index < 120; index++) await redis.xadd(key(`many-${index}`), '*', 'n', String(index));
    const got = await Promise.all(waits);
    expect(got.map(texts)).toEqual(Array.from({ length: 120 }, (_, index) => [String(index)]));
    expect(performance.now() - started).toBeLessThan(5000);
    // 3 blocking connections, and no other: followers that start waiting in one turn go out in one read per
    // connection, without waking one in flight (the connection for reads that do not wait, and wake-ups, is not opened).
    expect(shared.connections).toBe(3);
    for (const follower of followers) follower.release();
    expect(shared.connections).toBe(0);
  });

  it('wakes the shared read in flight for a follower that starts waiting after it went out', async () => {
    const first = shared.follower();
    const second = shared.follower();
    const waitingFirst = first.reads.read(key('early'), '0', 100, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const waitingSecond = second.reads.read(key('late'), '0', 100, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    await redis.xadd(key('late'), '*', 'n', 'late');
    expect(texts(await waitingSecond)).toEqual(['late']);
    // Not after the shared read's own wait (10 s): at once.
    expect(performance.now() - started).toBeLessThan(1000);
    await redis.xadd(key('early'), '*', 'n', 'early');
    expect(texts(await waitingFirst)).toEqual(['early']);
    first.release();
    second.release();
  });

  it('gives followers of one stream the entries after their own positions, at most as many as each asked for', async () => {
    const ids: string[] = [];
    for (const n of ['a', 'b', 'c']) ids.push((await redis.xadd(key('positions'), '*', 'n', n)) as string);
    const behind = shared.follower();
    const ahead = shared.follower();
    const few = shared.follower();
    const [fromStart, fromSecond, two] = await Promise.all([
      behind.reads.read(key('positions'), '0', 100, 5000),
      ahead.reads.read(key('positions'), ids[1] as string, 100, 5000),
      few.reads.read(key('positions'), '0', 2, 5000),
    ]);
    expect(texts(fromStart)).toEqual(['a', 'b', 'c']);
    expect(texts(fromSecond)).toEqual(['c']);
    expect(texts(two)).toEqual(['a', 'b']);
    // Waiting at the end of the stream, both get the next entry.
    const next = [
      behind.reads.read(key('positions'), ids[2] as string, 100, 5000),
      ahead.reads.read(key('positions'), ids[2] as string, 100, 5000),
    ];
    await new Promise((resolve) => setTimeout(resolve, 100));
    await redis.xadd(key('positions'), '*', 'n', 'd');
    expect((await Promise.all(next)).map(texts)).toEqual([['d'], ['d']]);
    for (const follower of [behind, ahead, few]) follower.release();
  });

  it("answers a wait that runs out with nothing, and a released follower's waiting read at once", async () => {
    const follower = shared.follower();
    const started = performance.now();
    expect(await follower.reads.read(key('quiet'), '0', 100, 300)).toEqual([]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    const waiting = follower.reads.read(key('quiet'), '0', 100, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const releasedAt = performance.now();
    follower.release();
    expect(await waiting).toEqual([]);
    expect(performance.now() - releasedAt).toBeLessThan(100);
    expect(shared.connections).toBeLessThanOrEqual(1);
  });

  it('refuses a position XREAD would refuse for that follower alone: the others on its connection are served', async () => {
    const bad = shared.follower();
    const good = shared.follower();
    const waiting = good.reads.read(key('shared-lane'), '0', 100, 5000);
    for (const id of ['18446744073709551616-0', '1-18446744073709551616', 'x', '1-2-3', '$', ''])
      await expect(bad.reads.read(key('shared-lane'), id, 100, 5000)).rejects.toThrow('is not a stream id');
    await redis.xadd(key('shared-lane'), '*', 'n', 'fine');
    expect(texts(await waiting)).toEqual(['fine']);
    bad.release();
    good.release();
  });

  /**
   * Followers on a few streams (several on one, each from its own position, some sharing a connection), entries
   * written to the streams in random order and rhythm while they wait: each follower gets every entry after its position,
   * in order, once — what one XREAD per connection carries for all of them is dealt out right.
   */
  it('deals every entry after its position to each follower, in order, once, whatever the interleaving', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ stream: fc.nat({ max: 2 }), from: fc.nat({ max: 3 }), count: fc.integer({ min: 1, max: 4 }) }), {
          minLength: 1,
          maxLength: 7,
        }),
        fc.array(fc.record({ stream: fc.nat({ max: 2 }), pause: fc.nat({ max: 3 }) }), { minLength: 1, maxLength: 25 }),
        async (followers, writes) => {
          const streams = [0, 1, 2].map((index) => key(`property-${run}-${index}`));
          run++;
          const local = sharedReads(3);
          try {
            // Three entries already in each stream; a follower starts after the `from`-th of its stream's (0: from the start).
            const existing: string[][] = [];
            for (const stream of streams) {
              const ids: string[] = [];
              for (let n = 0; n < 3; n++) ids.push((await redis.xadd(stream, '*', 'n', `old-${n}`)) as string);
              existing.push(ids);
            }
            const expectedCount = (stream: number, from: number) => 3 - from + writes.filter((write) => write.stream === stream).length;
            const received = followers.map(() => [] as string[]);
            const following = followers.map(async (spec, index) => {
              const { reads, release } = local.follower();
              let after = spec.from === 0 ? '0' : (existing[spec.stream]?.[spec.from - 1] as string);
              const deadline = Date.now() + 5000;
              try {
                while (received[index]!.length < expectedCount(spec.stream, spec.from) && Date.now() < deadline) {
                  const entries = await reads.read(streams[spec.stream] as string, after, spec.count, 1000);
                  expect(entries.length).toBeLessThanOrEqual(spec.count);
                  for (const [id, fields] of entries) {
                    received[index]!.push(fields[1] as string);
                    after = id;
                  }
                }
              } finally {
                release();
              }
            });
            for (const [n, write] of writes.entries()) {
              if (write.pause > 0) await new Promise((resolve) => setTimeout(resolve, write.pause));
              await redis.xadd(streams[write.stream] as string, '*', 'n', `new-${n}`);
            }
            await Promise.all(following);
            for (const [index, spec] of followers.entries()) {
              const all = ((await redis.xrange(streams[spec.stream] as string, '-', '+')) as StreamEntry[]).map(([, fields]) => fields[1]);
              expect(received[index]).toEqual(all.slice(spec.from));
            }
          } finally {
            await local.close();
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);

  it('reads that do not wait answer at once, with what is there', async () => {
    await redis.xadd(key('now'), '*', 'n', 'there');
    const follower = shared.follower();
    expect(texts(await follower.reads.read(key('now'), '0', 100, 0))).toEqual(['there']);
    expect(await follower.reads.read(key('never-written'), '0', 100, 0)).toEqual([]);
    follower.release();
  });
});
