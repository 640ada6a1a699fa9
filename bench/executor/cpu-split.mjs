// Diagnostic companion of bench/executor: CPU milliseconds per execution spent by each process
// (registry, executor, this client, Redis, Postgres) in the end-to-end loop. It says where to look
// when the throughput ratio moves. Usage: npm run build && node bench/executor/cpu-split.mjs
// Env: N (executions, 3000), C (concurrency, 8), STRACE=1 (count the services' syscalls, slower).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_TOKEN, benchDatabaseUrl, dropDatabase, startRegistryProcess, stopProcess } from '../support/registry-process.mjs';
import { startExecutorProcess } from '../support/executor-process.mjs';
import { executionCpuMeter } from '../support/cpu.mjs';
import { httpClient } from '../support/http-client.mjs';
import { deleteRedisKeys } from '../support/redis-cleanup.mjs';
import { writeSkill } from './skill-fixture.mjs';

const N = Number(process.env.N ?? 3000);
const C = Number(process.env.C ?? 8);
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
// As many sockets as calls in flight (the default 64 held concurrency 128 to 64 calls at a time).
const client = httpClient(registry.url, Math.max(64, C));
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

  const meter = executionCpuMeter(registry.child.pid, executor.child.pid);
  meter.start();
  const t0 = performance.now();
  await loop(N);
  const seconds = (performance.now() - t0) / 1000;
  const perExecution = meter.perUnit(N);
  for (const { tracer, pid, output } of tracers) {
    tracer.kill('SIGINT');
    await new Promise((resolve) => tracer.on('close', resolve));
    console.log(`syscalls of ${pid === registry.child.pid ? 'registry' : 'executor'} over ${N} executions:\n${output()}`);
  }
  console.log(`${(N / seconds).toFixed(0)} executions/s at concurrency ${C}; CPU ms per execution:`);
  for (const [label, ms] of Object.entries(perExecution)) console.log(`  ${label.padEnd(10)} ${ms.toFixed(3)}`);
  console.log(`  (${((os.cpus().length * 1000 * seconds) / N).toFixed(3)} ms of CPU available per execution on ${os.cpus().length} cores)`);
} finally {
  client.close();
  await stopProcess(executor.child);
  await stopProcess(registry.child);
  await dropDatabase(databaseUrl).catch(() => undefined);
  await deleteRedisKeys(env.REDIS_URL, env.QUEUE_PREFIX).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
}
