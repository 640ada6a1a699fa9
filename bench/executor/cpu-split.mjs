// Diagnostic companion of bench/executor: CPU milliseconds per execution spent by each process
// (registry, executor, this client, Redis, Postgres) in the end-to-end loop. It says where to look
// when the throughput ratio moves. Usage: npm run build && node bench/executor/cpu-split.mjs
// Env: N (executions, 3000), C (concurrency, 8), STRACE=1 (count the services' syscalls, slower).
import { execSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_TOKEN, benchDatabaseUrl, dropDatabase, startRegistryProcess, stopProcess } from '../support/registry-process.mjs';
import { startExecutorProcess } from '../support/executor-process.mjs';
import { httpClient } from '../support/http-client.mjs';
import { writeSkill } from './skill-fixture.mjs';

const N = Number(process.env.N ?? 3000);
const C = Number(process.env.C ?? 8);
const CLOCK_TICKS = 100;

/** CPU ms used so far by one process (all its threads). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0; // exited meanwhile
  }
}
const pidsOf = (pattern) => {
  try {
    return execSync(`pgrep -f ${pattern}`).toString().trim().split('\n').map(Number);
  } catch {
    return [];
  }
};
const total = (pids) => pids.reduce((sum, pid) => sum + cpuMs(pid), 0);

const root = await mkdtemp(path.join(os.tmpdir(), 'cpu-split-'));
const databaseUrl = benchDatabaseUrl();
await writeSkill(root, 'bench_noop', 'return { n: input.n };', 30);
const env = {
  DATABASE_URL: databaseUrl,
  SKILL_PATHS: root,
  QUEUE_PREFIX: `cpu-split-${process.pid}`,
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  DATABASE_POOL_SIZE: '20',
};
const registry = await startRegistryProcess(env);
const executor = await startExecutorProcess({ ...env, EXECUTOR_CONCURRENCY: String(C) });
const client = httpClient(registry.url);
try {
  await fetch(`${registry.url}/v1/admin/skills/bench_noop/versions/1.0.0/promote`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify({ force: true, reason: 'benchmark' }),
  });
  const execute = async () => {
    const { body } = await client.request('POST', '/v1/skills/bench_noop/executions?wait=30', { input: { n: 1 } });
    if (body.status !== 'SUCCEEDED') throw new Error(JSON.stringify(body));
  };
  const loop = async (count) => {
    let started = 0;
    await Promise.all(
      Array.from({ length: C }, async () => {
        while (started < count) {
          started++;
          await execute();
        }
      }),
    );
  };
  await loop(500); // warm-up

  const tracers = process.env.STRACE
    ? [registry.child.pid, executor.child.pid].map((pid) => {
        const tracer = spawn('strace', ['-f', '-c', '-p', String(pid), '-e', 'trace=write,writev,read,futex,epoll_pwait'], {
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let output = '';
        tracer.stderr.on('data', (chunk) => (output += chunk));
        return { tracer, pid, output: () => output };
      })
    : [];
  if (tracers.length) await new Promise((resolve) => setTimeout(resolve, 1000));

  const snapshot = () => ({
    registry: cpuMs(registry.child.pid),
    executor: cpuMs(executor.child.pid),
    client: cpuMs(process.pid),
    redis: total(pidsOf('redis-server')),
    postgres: total(pidsOf('postgres')),
  });
  const before = snapshot();
  const t0 = performance.now();
  await loop(N);
  const seconds = (performance.now() - t0) / 1000;
  const after = snapshot();
  for (const { tracer, pid, output } of tracers) {
    tracer.kill('SIGINT');
    await new Promise((resolve) => tracer.on('close', resolve));
    console.log(`syscalls of ${pid === registry.child.pid ? 'registry' : 'executor'} over ${N} executions:\n${output()}`);
  }
  console.log(`${(N / seconds).toFixed(0)} executions/s at concurrency ${C}; CPU ms per execution:`);
  let sum = 0;
  for (const key of Object.keys(before)) {
    const perExecution = (after[key] - before[key]) / N;
    sum += perExecution;
    console.log(`  ${key.padEnd(10)} ${perExecution.toFixed(3)}`);
  }
  console.log(`  ${'total'.padEnd(10)} ${sum.toFixed(3)} (of ${((os.cpus().length * 1000 * seconds) / N).toFixed(3)} available)`);
} finally {
  client.close();
  await stopProcess(executor.child);
  await stopProcess(registry.child);
  await dropDatabase(databaseUrl).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
}
