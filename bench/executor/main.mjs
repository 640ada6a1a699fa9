// bench/executor: a no-op skill end to end (REST → queue → worker → result) against raw BullMQ
// add+process of a no-op job at the same concurrency, in one run. Usage: npm run bench:executor
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { ADMIN_TOKEN, benchDatabaseUrl, dropDatabase, startRegistryProcess, stopProcess } from '../support/registry-process.mjs';
import { cpuMeter, executionCpuMeter, formatCpu, pidsOf } from '../support/cpu.mjs';
import { httpClient } from '../support/http-client.mjs';
import { deleteRedisKeys } from '../support/redis-cleanup.mjs';
import { writeSkill } from './skill-fixture.mjs';
import { rssMb, startExecutorProcess } from '../support/executor-process.mjs';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const JOBS = Number(process.env.BENCH_JOBS ?? 2000);
const SYNC_SAMPLES = Number(process.env.BENCH_SYNC_SAMPLES ?? 300);
const RSS_TOTAL = Number(process.env.BENCH_RSS_EXECUTIONS ?? 10_000);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

/** Closed loop: `clients` callers each run `task` until `total` tasks have been started. */
async function closedLoop(total, clients, task) {
  const latencies = [];
  let started = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (started < total) {
        started++;
        const t = performance.now();
        await task();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { perSecond: total / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function rawBullmq() {
  const prefix = `bench-raw-${process.pid}`;
  const connection = { url: REDIS_URL, maxRetriesPerRequest: null };
  const queue = new Queue('raw', { connection, prefix });
  const events = new QueueEvents('raw', { connection, prefix });
  const worker = new Worker('raw', async () => ({ ok: true }), { connection, prefix, concurrency: CONCURRENCY });
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady(), worker.waitUntilReady()]);
  const run = () =>
    closedLoop(JOBS, CONCURRENCY, async () => {
      const job = await queue.add('noop', { n: 1 }, { removeOnComplete: { age: 300 } });
      await job.waitUntilFinished(events, 30_000);
    });
  await run(); // warm-up
  const meter = cpuMeter({ 'bench process': () => [process.pid], redis: () => pidsOf('redis-server') });
  meter.start();
  const result = await run();
  result.cpu = meter.perUnit(JOBS);
  await worker.close();
  await events.close();
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
  return result;
}

let client;
async function execute(skill, n) {
  const { status, body } = await client.request('POST', `/v1/skills/${skill}/executions?wait=30`, { input: { n } });
  if (status !== 200 || (body.status !== 'SUCCEEDED' && skill === 'bench_noop'))
    throw new Error(`execution: ${status} ${JSON.stringify(body)}`);
  return body;
}

const root = await mkdtemp(path.join(os.tmpdir(), 'bench-exec-'));
const databaseUrl = benchDatabaseUrl();
const prefix = `bench-exec-${process.pid}`;
let registry;
let executor;
try {
  await writeSkill(root, 'bench_noop', 'return { n: input.n };', 30);
  await writeSkill(root, 'bench_hang', 'for (;;) { /* never yields */ } return input;', 1);
  const env = { DATABASE_URL: databaseUrl, SKILL_PATHS: root, QUEUE_PREFIX: prefix, REDIS_URL, DATABASE_POOL_SIZE: '20' };
  registry = await startRegistryProcess(env);
  client = httpClient(registry.url);
  executor = await startExecutorProcess({ ...env, EXECUTOR_CONCURRENCY: String(CONCURRENCY) });
  for (const name of ['bench_noop', 'bench_hang']) {
    await fetch(`${registry.url}/v1/admin/skills/${name}/versions/1.0.0/promote`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ force: true, reason: 'benchmark' }),
    });
  }

  console.log(`raw BullMQ add+process, concurrency ${CONCURRENCY}, ${JOBS} jobs ...`);
  const raw = await rawBullmq();
  console.log(`end to end REST → queue → worker → result, concurrency ${CONCURRENCY}, ${JOBS} executions ...`);
  await closedLoop(200, CONCURRENCY, () => execute('bench_noop', 1)); // warm-up
  const meter = executionCpuMeter(registry.child.pid, executor.child.pid);
  meter.start();
  const system = await closedLoop(JOBS, CONCURRENCY, () => execute('bench_noop', 1));
  system.cpu = meter.perUnit(JOBS);

  const sync = await closedLoop(SYNC_SAMPLES, 1, () => execute('bench_noop', 2));

  const hang = await execute('bench_hang', 3);
  const hangMs = hang.duration_ms;

  // RSS: after 1,000 executions, then after RSS_TOTAL.
  let done = 2 * JOBS + 200 + SYNC_SAMPLES;
  const toThousand = Math.max(0, 1000 - done);
  if (toThousand) await closedLoop(toThousand, CONCURRENCY, () => execute('bench_noop', 1));
  done += toThousand;
  const rssAt1k = await rssMb(executor.child.pid);
  const rest = Math.max(0, RSS_TOTAL - done);
  await closedLoop(rest, CONCURRENCY, () => execute('bench_noop', 1));
  const rssAtTotal = await rssMb(executor.child.pid);

  const cpus = os.cpus();
  const ratio = system.perSecond / raw.perSecond;
  const checks = [
    [`throughput ratio ${ratio.toFixed(2)} (target ≥ 0.50)`, ratio >= 0.5],
    [`synchronous wait p50 ${sync.p50.toFixed(2)} ms (target ≤ 5 ms)`, sync.p50 <= 5],
    [`1 s timeout stopped a hung handler after ${hangMs} ms (target ≤ 1300 ms)`, hang.error?.code === 'HANDLER_TIMEOUT' && hangMs <= 1300],
    [
      `executor RSS ${rssAt1k.toFixed(1)} MB after 1,000 → ${rssAtTotal.toFixed(1)} MB after ${RSS_TOTAL} (target ≤ +50 MB)`,
      rssAtTotal <= rssAt1k + 50,
    ],
  ];
  console.log(
    `\nmachine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, node ${process.version}, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log('run'.padEnd(44) + 'jobs/s'.padStart(10) + 'p50 ms'.padStart(10) + 'p99 ms'.padStart(10));
  for (const [label, r] of [
    [`raw BullMQ (concurrency ${CONCURRENCY})`, raw],
    [`REST end to end (concurrency ${CONCURRENCY})`, system],
    ['REST ?wait, one client', sync],
  ]) {
    console.log(label.padEnd(44) + r.perSecond.toFixed(0).padStart(10) + r.p50.toFixed(2).padStart(10) + r.p99.toFixed(2).padStart(10));
  }
  console.log(`\nCPU per job, raw BullMQ:   ${formatCpu(raw.cpu)}`);
  console.log(`CPU per execution, REST:  ${formatCpu(system.cpu)}`);
  console.log(
    `With ${cpus.length} cores shared by every process, the end to end can reach at most ${((cpus.length * 1000) / system.cpu.total).toFixed(0)} executions/s at this cost.`,
  );
  console.log('');
  for (const [label, pass] of checks) console.log(`${pass ? 'PASS' : 'FAIL'}  ${label}`);
  process.exitCode = checks.every(([, pass]) => pass) ? 0 : 1;
} finally {
  client?.close();
  if (executor) await stopProcess(executor.child);
  if (registry) await stopProcess(registry.child);
  await dropDatabase(databaseUrl).catch(() => undefined);
  await deleteRedisKeys(REDIS_URL, prefix).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
}
