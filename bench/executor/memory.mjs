// bench/executor/memory.mjs: resident memory of the executor at concurrency 4 after 1,000 and after
// 10,000 executions of the catalog's pure-logic skills (skills/firmware/*, skills/simulation/compare_results),
// each run on its own declared example input, round robin. Part of npm run bench:executor.
// Usage: npm run build && node bench/executor/memory.mjs   Env: BENCH_RSS_EXECUTIONS (10000).
import { chmod, cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_TOKEN, REPO_ROOT, benchDatabaseUrl, dropDatabase, startRegistryProcess, stopProcess } from '../support/registry-process.mjs';
import { rssMb, startExecutorProcess } from '../support/executor-process.mjs';
import { httpClient } from '../support/http-client.mjs';
import { deleteRedisKeys } from '../support/redis-cleanup.mjs';
import { closedLoop } from './closed-loop.mjs';

const SKILLS = ['firmware/check_memory_budget', 'firmware/generate_scaffold', 'firmware/validate_pinmap', 'simulation/compare_results'];
const CONCURRENCY = 4;
const TOTAL = Number(process.env.BENCH_RSS_EXECUTIONS ?? 10_000);
const FIRST = Math.min(1000, TOTAL);
const LIMIT_MB = 200;
const GROWTH_LIMIT_MB = 50;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** RSS of every process below `pid` (bwrap, the sandbox processes, the compiler), summed: shared pages count in each. */
async function descendantsRssMb(pid) {
  const { readdir, readFile: read } = await import('node:fs/promises');
  const parents = new Map();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await read(`/proc/${entry}/stat`, 'utf8').catch(() => null);
    if (stat) parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const below = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [child, parent] of parents) {
      if (below.has(parent) && !below.has(child)) {
        below.add(child);
        grew = true;
      }
    }
  }
  below.delete(pid);
  let total = 0;
  for (const child of below) total += await rssMb(child).catch(() => 0);
  return total;
}

const root = await mkdtemp(path.join(os.tmpdir(), 'bench-memory-'));
const cache = await mkdtemp(path.join(os.tmpdir(), 'bench-memory-cache-'));
// mkdtemp makes it 0700; the sandbox user must traverse the package cache (else the executor warns that script tools cannot run).
await chmod(cache, 0o755);
const databaseUrl = benchDatabaseUrl();
const prefix = `bench-memory-${process.pid}`;
let registry;
let executor;
let client;
try {
  const skills = [];
  for (const skill of SKILLS) {
    await cp(path.join(REPO_ROOT, 'skills', skill), path.join(root, skill), {
      recursive: true,
      filter: (source) => !source.includes('node_modules'),
    });
    const definition = JSON.parse(await readFile(path.join(root, skill, 'definition.json'), 'utf8'));
    skills.push({ name: definition.name, version: definition.version, input: definition.examples[0].input });
  }
  const env = { DATABASE_URL: databaseUrl, SKILL_PATHS: root, QUEUE_PREFIX: prefix, REDIS_URL };
  registry = await startRegistryProcess(env);
  client = httpClient(registry.url);
  for (const { name, version } of skills) {
    const response = await fetch(`${registry.url}/v1/admin/skills/${name}/versions/${version}/promote`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ force: true, reason: 'benchmark' }),
    });
    if (response.status !== 200) throw new Error(`promote ${name}: ${response.status} ${await response.text()}`);
  }
  executor = await startExecutorProcess({ ...env, PACKAGE_CACHE_DIR: cache, EXECUTOR_CONCURRENCY: String(CONCURRENCY) });
  /** The executor's own view (from its /metrics and /proc): its sandbox processes and the main thread's heap. */
  const inside = async () => {
    const text = await (await fetch(`http://127.0.0.1:${executor.port}/metrics`)).text();
    const metric = (name) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)`, 'm').exec(text)?.[1] ?? NaN);
    const mb = (name) => (metric(name) / 1024 / 1024).toFixed(0);
    return `${metric('skill_sandbox_processes')} sandbox processes, ${(await descendantsRssMb(executor.child.pid)).toFixed(0)} MB RSS together; main thread's heap ${mb('nodejs_heap_size_used_bytes')} MB used of ${mb('nodejs_heap_size_total_bytes')}`;
  };
  const rssAtStart = await rssMb(executor.child.pid);
  const insideAtStart = await inside();
  let next = 0;
  const execute = async () => {
    const { name, version, input } = skills[next++ % skills.length];
    const { status, body } = await client.request('POST', `/v1/skills/${name}/executions?wait=30`, { input, version });
    if (status !== 200 || body.status !== 'SUCCEEDED') throw new Error(`${name}: ${status} ${JSON.stringify(body)}`);
  };
  const first = await closedLoop(FIRST, CONCURRENCY, execute);
  const rssAtFirst = await rssMb(executor.child.pid);
  const insideAtFirst = await inside();
  const rest = await closedLoop(TOTAL - FIRST, CONCURRENCY, execute);
  const rssAtTotal = await rssMb(executor.child.pid);
  const insideAtTotal = await inside();

  const cpus = os.cpus();
  console.log(`machine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, node ${process.version}`);
  console.log(
    `executor RSS, concurrency ${CONCURRENCY}, ${skills.length} catalog skills round robin (${first.perSecond.toFixed(0)} then ${rest.perSecond.toFixed(0)} executions/s):`,
  );
  console.log(`  at ready                 ${rssAtStart.toFixed(1)} MB (${insideAtStart})`);
  console.log(`  after ${FIRST.toLocaleString('en')} executions   ${rssAtFirst.toFixed(1)} MB (${insideAtFirst})`);
  console.log(
    `  after ${TOTAL.toLocaleString('en')} executions  ${rssAtTotal.toFixed(1)} MB (${insideAtTotal}; growth ${(rssAtTotal - rssAtFirst).toFixed(1)} MB)`,
  );
  const checks = [
    [`RSS after ${FIRST} executions ${rssAtFirst.toFixed(1)} MB (target ≤ ${LIMIT_MB} MB)`, rssAtFirst <= LIMIT_MB],
    [
      `growth to ${TOTAL} executions ${(rssAtTotal - rssAtFirst).toFixed(1)} MB (target ≤ ${GROWTH_LIMIT_MB} MB)`,
      rssAtTotal - rssAtFirst <= GROWTH_LIMIT_MB,
    ],
  ];
  for (const [label, pass] of checks) console.log(`${pass ? 'PASS' : 'FAIL'}  ${label}`);
  process.exitCode = checks.every(([, pass]) => pass) ? 0 : 1;
} finally {
  client?.close();
  if (executor) await stopProcess(executor.child);
  if (registry) await stopProcess(registry.child);
  await dropDatabase(databaseUrl).catch(() => undefined);
  await deleteRedisKeys(REDIS_URL, prefix).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
  await rm(cache, { recursive: true, force: true });
}
