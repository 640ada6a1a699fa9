// bench/executor/wait-split.mjs: where one synchronous call (`POST …/executions?wait=`) spends its time, by stage,
// for one client, on the real processes. No instrumentation in the services: the stages are cut by the client's
// clock around the request and by the row's own timestamps, which Postgres sets in each statement's transaction
// (created_at: the insert, started_at: the attempt's start, finished_at: the finish) — one system clock, µs.
//   request → insert        the HTTP request, routing, auth, input validation, group commit's hand-off
//   insert → start          insert and commit, the 'queued' event and the enqueue (Redis), the executor's pick-up
//   start → finish          start commit (unless deferred), the 'started' event, the sandbox hop and the handler, output checks
//   finish → response       finish and commit, NOTIFY to the registry's waiter, the response
// Then the same calls with one suspect toggled at a time (each a fresh executor, or registry, in the same run).
// Usage: npm run build && node bench/executor/wait-split.mjs   Env: BENCH_SYNC_SAMPLES (400), BENCH_WARMUP (1000 calls
// before each variant's samples, so the processes are measured warm), BENCH_SPLIT_VARIANTS (all; labels, comma-separated, in the order given)
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ADMIN_TOKEN, benchDatabaseUrl, dropDatabase, startRegistryProcess, stopProcess } from '../support/registry-process.mjs';
import { startExecutorProcess } from '../support/executor-process.mjs';
import { httpClient } from '../support/http-client.mjs';
import { deleteRedisKeys } from '../support/redis-cleanup.mjs';
import { writeSkill } from './skill-fixture.mjs';
import { percentile } from './closed-loop.mjs';

const SAMPLES = Number(process.env.BENCH_SYNC_SAMPLES ?? 400);
/** Unmeasured calls first: with 50, the services were measured while V8 still compiled them (as in bench:executor). */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1000);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The configuration of the `?wait` figure of bench:executor (concurrency 32), and one suspect toggled in each variant. */
const ALL_VARIANTS = [
  { label: 'as configured (concurrency 32)', executor: {}, registry: {} },
  { label: 'executor ATTEMPT_START_DEFER_MS=0', executor: { ATTEMPT_START_DEFER_MS: '0' }, registry: {} },
  { label: 'executor concurrency 1', executor: { EXECUTOR_CONCURRENCY: '1' }, registry: {} },
  { label: 'HANDLER_SANDBOX=none', executor: { HANDLER_SANDBOX: 'none' }, registry: {} },
  { label: 'executor EVENT_HOLD_MS=0', executor: { EVENT_HOLD_MS: '0' }, registry: {} },
  { label: 'executor WRITE_BATCH_WINDOW_MS=0', executor: { WRITE_BATCH_WINDOW_MS: '0' }, registry: {} },
];
// BENCH_SPLIT_VARIANTS picks variants by label, in its own order (swap two to see whether the order matters).
const VARIANTS = process.env.BENCH_SPLIT_VARIANTS
  ? process.env.BENCH_SPLIT_VARIANTS.split(',').map((label) => {
      const variant = ALL_VARIANTS.find((candidate) => candidate.label === label);
      if (!variant) throw new Error(`no variant '${label}': ${ALL_VARIANTS.map((candidate) => candidate.label).join(', ')}`);
      return variant;
    })
  : ALL_VARIANTS;

const now = () => performance.timeOrigin + performance.now();

async function measure(client, pool) {
  const calls = [];
  for (let index = 0; index < SAMPLES + WARMUP; index++) {
    const sent = now();
    const { status, body } = await client.request('POST', `/v1/skills/bench_noop/executions?wait=30`, { input: { n: index } });
    const received = now();
    if (status !== 200 || body.status !== 'SUCCEEDED') throw new Error(`execution: ${status} ${JSON.stringify(body).slice(0, 300)}`);
    if (index >= WARMUP) calls.push({ id: body.id, sent, received });
  }
  const { rows } = await pool.query(
    `SELECT id, EXTRACT(EPOCH FROM created_at) * 1000 AS created, EXTRACT(EPOCH FROM started_at) * 1000 AS started,
            EXTRACT(EPOCH FROM finished_at) * 1000 AS finished
       FROM executions WHERE id = ANY($1::uuid[])`,
    [calls.map((call) => call.id)],
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  const stages = { 'request → insert': [], 'insert → start': [], 'start → finish': [], 'finish → response': [], total: [] };
  for (const call of calls) {
    const row = byId.get(call.id);
    const [created, started, finished] = [Number(row.created), Number(row.started), Number(row.finished)];
    stages['request → insert'].push(created - call.sent);
    stages['insert → start'].push(started - created);
    stages['start → finish'].push(finished - started);
    stages['finish → response'].push(call.received - finished);
    stages.total.push(call.received - call.sent);
  }
  return stages;
}

const root = await mkdtemp(path.join(os.tmpdir(), 'bench-split-'));
const prefix = `bench-split-${process.pid}`;
const results = [];
let registry;
let executor;
try {
  await writeSkill(root, 'bench_noop', 'return { n: input.n };', 30);
  for (const variant of VARIANTS) {
    const databaseUrl = benchDatabaseUrl();
    const env = {
      DATABASE_URL: databaseUrl,
      SKILL_PATHS: root,
      QUEUE_PREFIX: `${prefix}-${results.length}`,
      REDIS_URL,
      DATABASE_POOL_SIZE: '20',
    };
    registry = await startRegistryProcess({ ...env, ...variant.registry });
    await fetch(`${registry.url}/v1/admin/skills/bench_noop/versions/1.0.0/promote`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ force: true, reason: 'benchmark' }),
    });
    executor = await startExecutorProcess({ ...env, EXECUTOR_CONCURRENCY: '32', ...variant.executor });
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    try {
      const stages = await measure(httpClient(registry.url, 4), pool);
      results.push({ label: variant.label, stages });
      console.log(`${variant.label}: p50 ${percentile(stages.total, 50).toFixed(2)} ms`);
    } finally {
      await pool.end();
      await stopProcess(executor.child);
      await stopProcess(registry.child);
      executor = registry = undefined;
      await dropDatabase(databaseUrl).catch(() => undefined);
      await deleteRedisKeys(REDIS_URL, env.QUEUE_PREFIX).catch(() => undefined);
    }
  }
  // The row's timestamps are timestamp(3): stage boundaries are rounded to the millisecond, so a stage's median is
  // too; its mean over the calls is not biased by the rounding and is what the stages are compared by.
  const names = Object.keys(results[0].stages).filter((name) => name !== 'total');
  const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
  console.log(`\n?wait, one client, ${SAMPLES} calls each: mean of each stage, then the total's mean, p50 and p99, ms`);
  console.log('variant'.padEnd(34) + [...names, 'mean', 'p50', 'p99'].map((name) => name.padStart(19)).join(''));
  for (const { label, stages } of results) {
    const figures = [
      ...names.map((name) => mean(stages[name])),
      mean(stages.total),
      percentile(stages.total, 50),
      percentile(stages.total, 99),
    ];
    console.log(label.padEnd(34) + figures.map((figure) => figure.toFixed(2).padStart(19)).join(''));
  }
  const base = percentile(results[0].stages.total, 50);
  console.log(
    `\nratio of each variant's p50 to the first, same run: ${results.map((r) => (percentile(r.stages.total, 50) / base).toFixed(2)).join(', ')}`,
  );
} finally {
  if (executor) await stopProcess(executor.child);
  if (registry) await stopProcess(registry.child);
  await rm(root, { recursive: true, force: true });
}
