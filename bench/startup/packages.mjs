// bench/startup/packages.mjs: the processes' start (scripts/run-all.mjs: registry, executor, adapters) until every
// one answers — registry /readyz (catalog discovered), executor /readyz, adapters /healthz — with the bundled catalog
// alone and with 1,000 extra generated packages on SKILL_PATHS, each a first start (empty database: every package
// validated, its code inspected in the sandbox, stored) and a second start with nothing changed, in one run.
// Targets (issue 31 §2): with 1,000 extra packages, first ≤ 10 s, second ≤ 3 s. Needs a build (npm run build).
// Usage: node bench/startup/packages.mjs   Env: BENCH_STARTUP_PACKAGES (1000), BENCH_STARTUP_TIMEOUT_S (300)
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { generateSkills } from '../support/generate-skills.mjs';
import { deleteRedisKeys } from '../support/redis-cleanup.mjs';
import { benchDatabaseUrl, dropDatabase, freePort, REPO_ROOT } from '../support/registry-process.mjs';

const EXTRA = Number(process.env.BENCH_STARTUP_PACKAGES ?? 1000);
const TIMEOUT_MS = Number(process.env.BENCH_STARTUP_TIMEOUT_S ?? 300) * 1000;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADAPTERS = ['spice', 'calculix', 'gmsh', 'kicad'];
const TARGETS = { first: 10_000, second: 3_000 };

function status(url) {
  return new Promise((resolve) => {
    const request = http.get(url, { timeout: 1000 }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(0));
  });
}

/** Starts run-all.mjs with `env`, waits until every process answers, stops it; the time to ready in ms. */
async function timedStart(env) {
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'scripts/run-all.mjs')], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output = [];
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => output.push(String(chunk)));
  let exited = null;
  child.on('exit', (code, signal) => (exited = signal ?? code));
  const endpoints = [
    `http://127.0.0.1:${env.PORT}/readyz`,
    `http://127.0.0.1:${env.EXECUTOR_PORT}/readyz`,
    ...ADAPTERS.map((name) => `http://127.0.0.1:${env[`${name.toUpperCase()}_PORT`]}/healthz`),
  ];
  const ready = new Set();
  try {
    while (ready.size < endpoints.length) {
      if (exited !== null) throw new Error(`run-all exited (${exited}): ${output.join('').slice(-3000)}`);
      if (performance.now() - started > TIMEOUT_MS)
        throw new Error(`not ready within ${TIMEOUT_MS / 1000} s: ${output.join('').slice(-3000)}`);
      await Promise.all(endpoints.filter((url) => !ready.has(url)).map(async (url) => (await status(url)) === 200 && ready.add(url)));
      if (ready.size < endpoints.length) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return performance.now() - started;
  } finally {
    if (exited === null) {
      const gone = new Promise((resolve) => child.on('exit', resolve));
      process.kill(-child.pid, 'SIGTERM');
      const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 40_000);
      await gone;
      clearTimeout(timer);
    }
  }
}

async function environment(extraRoot) {
  const ports = {};
  for (const name of ['PORT', 'EXECUTOR_PORT', 'GRPC_PORT', ...ADAPTERS.map((adapter) => `${adapter.toUpperCase()}_PORT`)]) {
    ports[name] = String(await freePort());
  }
  return {
    ...ports,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ADMIN_TOKENS: 'bench=bench-startup-admin-token',
    DATABASE_URL: benchDatabaseUrl(),
    QUEUE_PREFIX: `bench-startup-${process.pid}-${Math.random().toString(16).slice(2, 8)}`,
    SKILL_PATHS: [path.join(REPO_ROOT, 'skills'), ...(extraRoot ? [extraRoot] : [])].join(':'),
    TOOL_ADAPTERS: ADAPTERS.map((name) => `${name}=http://127.0.0.1:${ports[`${name.toUpperCase()}_PORT`]}/mcp`).join(','),
    PACKAGE_CACHE_DIR: path.join(os.tmpdir(), `bench-startup-cache-${process.pid}`),
  };
}

const extraRoot = await mkdtemp(path.join(os.tmpdir(), 'bench-startup-packages-'));
const rows = [];
const cleanups = [];
try {
  console.log(`generating ${EXTRA} packages in ${extraRoot} ...`);
  await generateSkills(extraRoot, EXTRA);
  for (const [label, root] of [
    ['bundled catalog only', null],
    [`catalog + ${EXTRA} packages`, extraRoot],
  ]) {
    const env = await environment(root);
    cleanups.push(
      () => dropDatabase(env.DATABASE_URL),
      () => deleteRedisKeys(REDIS_URL, env.QUEUE_PREFIX),
    );
    const first = await timedStart(env);
    const second = await timedStart(env);
    console.log(`${label}: first start ${(first / 1000).toFixed(2)} s, second ${(second / 1000).toFixed(2)} s`);
    rows.push({ label, first, second });
  }
} finally {
  for (const cleanUp of cleanups.reverse()) await cleanUp().catch(() => undefined);
  await rm(extraRoot, { recursive: true, force: true });
}

const cpus = os.cpus();
console.log(
  `\nmachine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, node ${process.version}, load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log('start of the processes to ready'.padEnd(34) + 'first s'.padStart(10) + 'second s'.padStart(10));
for (const row of rows)
  console.log(row.label.padEnd(34) + (row.first / 1000).toFixed(2).padStart(10) + (row.second / 1000).toFixed(2).padStart(10));
const [alone, loaded] = rows;
console.log(
  `ratio with ${EXTRA} packages to the catalog alone: first ${(loaded.first / alone.first).toFixed(2)}×, second ${(loaded.second / alone.second).toFixed(2)}×`,
);
let failed = false;
for (const [which, target] of Object.entries(TARGETS)) {
  const ok = loaded[which] <= target;
  failed ||= !ok;
  console.log(
    `${ok ? 'PASS' : 'FAIL'}  ${which} start with ${EXTRA} extra packages ${(loaded[which] / 1000).toFixed(2)} s (target ≤ ${target / 1000} s)`,
  );
}
process.exitCode = failed ? 1 : 0;
