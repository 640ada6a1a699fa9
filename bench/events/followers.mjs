// bench/events/followers.mjs: many clients following event streams on one registry — what they hold (Redis
// connections, the registry's file descriptors, its memory) and how fast an event reaches them all. In one run, the same load on a registry whose
// followers share Redis connections (EVENT_STREAMS_PER_CONNECTION, default 50) and on one with a connection each
// (EVENT_STREAMS_PER_CONNECTION=1: the baseline, as before the shared reads), printed side by side with ratios.
// The load: BENCH_FOLLOWERS SSE streams of the platform's events (GET /v1/events), then BENCH_ROUNDS events appended
// to that stream one at a time, each timed until every follower has read it.
// Usage: npm run build && node bench/events/followers.mjs   Env: BENCH_FOLLOWERS (1000), BENCH_ROUNDS (20).
import http from 'node:http';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { ADMIN_TOKEN, benchDatabaseUrl, dropDatabase, startRegistryProcess, stopProcess } from '../support/registry-process.mjs';
import { deleteRedisKeys } from '../support/redis-cleanup.mjs';
import { percentile } from '../executor/closed-loop.mjs';

const FOLLOWERS = Number(process.env.BENCH_FOLLOWERS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Open file descriptors of a process (sockets included): exact, where its memory moves with its collector. */
const descriptors = async (pid) => (await readdir(`/proc/${pid}/fd`)).length;
const rssMb = async (pid) => Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** Opens one SSE stream; `seen(text)` is told of every chunk (the events' data carry the round's marker). */
function follow(url, agent, seen) {
  return new Promise((resolve, reject) => {
    const request = http.get(
      url,
      { agent, headers: { accept: 'text/event-stream', authorization: `Bearer ${ADMIN_TOKEN}` } },
      (response) => {
        if (response.statusCode !== 200) return reject(new Error(`stream answered ${response.statusCode}`));
        response.setEncoding('utf8');
        response.on('data', seen);
        resolve(request);
      },
    );
    request.on('error', reject);
  });
}

async function measure(label, perConnection, redis) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'bench-followers-'));
  const databaseUrl = benchDatabaseUrl();
  const prefix = `bench-followers-${process.pid}-${perConnection}`;
  const env = {
    DATABASE_URL: databaseUrl,
    SKILL_PATHS: root,
    QUEUE_PREFIX: prefix,
    REDIS_URL,
    EVENT_STREAMS_MAX: String(FOLLOWERS + 10),
    EVENT_STREAMS_PER_CALLER: String(FOLLOWERS + 10),
    EVENT_STREAMS_PER_CONNECTION: String(perConnection),
  };
  const registry = await startRegistryProcess(env);
  const requests = [];
  try {
    // The registry's memory settles for a few seconds after it is ready (start-up garbage collected).
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const clientsBefore = Number(/connected_clients:(\d+)/.exec(await redis.info('clients'))?.[1]);
    const rssBefore = await rssMb(registry.child.pid);
    const descriptorsBefore = await descriptors(registry.child.pid);
    const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
    let waiting = null;
    for (let index = 0; index < FOLLOWERS; index++) {
      requests.push(
        await follow(`${registry.url}/v1/events`, agent, (text) => {
          if (waiting && text.includes(waiting.marker) && --waiting.left === 0) waiting.done();
        }),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const clients = Number(/connected_clients:(\d+)/.exec(await redis.info('clients'))?.[1]) - clientsBefore;
    const rss = await rssMb(registry.child.pid);
    const held = (await descriptors(registry.child.pid)) - descriptorsBefore;
    const fanOut = [];
    for (let round = 0; round < ROUNDS; round++) {
      const marker = `round-${round}-${Date.now()}`;
      const all = new Promise((resolve) => (waiting = { marker, left: FOLLOWERS, done: resolve }));
      const started = performance.now();
      await redis.xadd(
        `${prefix}:events`,
        '*',
        'type',
        'run.queued',
        'execution',
        '',
        'skill',
        's',
        'session',
        '',
        'data',
        JSON.stringify({ marker }),
      );
      await all;
      fanOut.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const result = {
      label,
      clients,
      perStreamKb: ((rss - rssBefore) * 1024) / FOLLOWERS,
      descriptors: held / FOLLOWERS,
      p50: percentile(fanOut, 50),
      p99: percentile(fanOut, 99),
    };
    console.log(
      `${label}: ${clients} Redis connections; per stream ${result.descriptors.toFixed(2)} registry file descriptors and ${result.perStreamKb.toFixed(1)} KB of its RSS (moves with its collector); an event reaches all ${FOLLOWERS} in p50 ${result.p50.toFixed(1)} ms (p99 ${result.p99.toFixed(1)})`,
    );
    return result;
  } finally {
    for (const request of requests) request.destroy();
    await stopProcess(registry.child);
    await dropDatabase(databaseUrl).catch(() => undefined);
    await deleteRedisKeys(REDIS_URL, prefix).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  }
}

const redis = new Redis(REDIS_URL);
try {
  console.log(`${FOLLOWERS} clients following GET /v1/events on one registry, ${ROUNDS} events each timed to the last follower`);
  const shared = await measure('shared reads (EVENT_STREAMS_PER_CONNECTION=50)', 50, redis);
  const baseline = await measure('a connection each (EVENT_STREAMS_PER_CONNECTION=1, baseline)', 1, redis);
  console.log(
    `\nratios to the baseline, same run: Redis connections ${(shared.clients / baseline.clients).toFixed(3)}, descriptors per stream ${(shared.descriptors / baseline.descriptors).toFixed(2)}, fan-out p50 ${(shared.p50 / baseline.p50).toFixed(2)}, p99 ${(shared.p99 / baseline.p99).toFixed(2)}`,
  );
} finally {
  redis.disconnect();
}
