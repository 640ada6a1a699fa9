// bench/scripts/python-tool.mjs: a no-op Python script tool end to end (REST ?wait → queue → executor →
// bubblewrap → python3 → result) against python3 started directly on the same JSON, in one run.
// Usage: npm run bench:python-tool   (BENCH_PYTHON_RUNS=200, BENCH_PYTHON_ISOLATION=bubblewrap|none)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { packPackageArchive, readPackageDir } from '#package-store/index.js';
import { startExecutorProcess } from '../support/executor-process.mjs';
import { deleteRedisKeys } from '../support/redis-cleanup.mjs';
import { ADMIN_TOKEN, benchDatabaseUrl, dropDatabase, startRegistryProcess, stopProcess } from '../support/registry-process.mjs';

const RUNS = Number(process.env.BENCH_PYTHON_RUNS ?? 200);
const ISOLATION = process.env.BENCH_PYTHON_ISOLATION ?? 'bubblewrap';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const NOOP = 'import json, sys\nprint(json.dumps({"echo": json.load(sys.stdin)["text"]}))\n';
const INPUT = { text: 'bench' };

const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];
const row = (label, values) =>
  `${label.padEnd(56)} ${percentile(values, 50).toFixed(2).padStart(8)} ${percentile(values, 99).toFixed(2).padStart(8)}`;

async function writePackage(root) {
  const dir = path.join(root, 'noop-tool');
  await mkdir(path.join(dir, 'scripts'), { recursive: true });
  await writeFile(
    path.join(dir, 'SKILL.md'),
    '---\nname: noop-tool\ndescription: Echoes its input (bench only).\nmetadata:\n  dcc-mcp:\n    version: "1.0.0"\n    tools: tools.yaml\n---\n',
  );
  await writeFile(
    path.join(dir, 'tools.yaml'),
    'tools:\n  - name: echo\n    description: Echo.\n    source_file: scripts/echo.py\n    idempotent: true\n    input_schema:\n      type: object\n      properties:\n        text: { type: string }\n    examples:\n      - input: { text: bench }\n        output: { echo: bench }\n',
  );
  await writeFile(path.join(dir, 'scripts/echo.py'), NOOP);
  return dir;
}

/** The interpreter the sandbox runs (it looks only in these directories; PATH may hold slower shims such as pyenv's). */
const PYTHON = ['/usr/local/bin/python3', '/usr/bin/python3', '/bin/python3'].find((candidate) => existsSync(candidate)) ?? 'python3';

/** python3 started directly on the same script and JSON: the floor any sandbox adds to. */
function directRun(script) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(PYTHON, [script], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 || JSON.parse(out).echo !== INPUT.text) reject(new Error(`direct run failed: ${code} ${out}`));
      else resolve(performance.now() - started);
    });
    child.stdin.end(JSON.stringify(INPUT));
  });
}

async function main() {
  const root = await mkdtemp(path.join(os.tmpdir(), 'bench-python-'));
  const databaseUrl = benchDatabaseUrl();
  const queuePrefix = `bench-python-${process.pid}`;
  let registry;
  let executor;
  try {
    const dir = await writePackage(root);
    const env = { DATABASE_URL: databaseUrl, REDIS_URL, QUEUE_PREFIX: queuePrefix, SKILL_PATHS: path.join(root, 'none') };
    registry = await startRegistryProcess(env);
    executor = await startExecutorProcess({ ...env, SCRIPT_SANDBOX: ISOLATION });
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const published = await fetch(`${registry.url}/v1/packages`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/gzip' },
      body: await packPackageArchive(await readPackageDir(dir)),
    });
    if (published.status !== 201) throw new Error(`publish: ${await published.text()}`);
    const promoted = await fetch(`${registry.url}/v1/admin/skills/noop_tool/versions/1.0.0/promote`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{}',
    });
    if (promoted.status !== 200) throw new Error(`promote: ${await promoted.text()}`);

    const execute = async () => {
      const started = performance.now();
      const response = await fetch(`${registry.url}/v1/skills/noop_tool/executions?wait=30`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tool: 'echo', input: INPUT }),
      });
      const body = await response.json();
      if (body.status !== 'SUCCEEDED') throw new Error(`execution: ${JSON.stringify(body)}`);
      return performance.now() - started;
    };
    const script = path.join(dir, 'scripts/echo.py');
    for (let i = 0; i < 10; i++) await Promise.all([execute(), directRun(script)]);

    // Alternate the two so load on the machine hits both alike.
    const endToEnd = [];
    const direct = [];
    for (let i = 0; i < RUNS; i++) {
      endToEnd.push(await execute());
      direct.push(await directRun(script));
    }
    const load = os
      .loadavg()
      .map((value) => value.toFixed(1))
      .join(' ');
    console.log(`\nmachine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load ${load}`);
    console.log(`no-op Python script tool, ${RUNS} runs each, isolation ${ISOLATION}`);
    console.log(`${'run'.padEnd(56)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}`);
    console.log(row(`${PYTHON} started directly (same script, JSON)`, direct));
    console.log(row('REST ?wait → executor → sandbox → python3', endToEnd));
    const overhead = percentile(endToEnd, 50) - percentile(direct, 50);
    console.log(
      `\noverhead at p50: ${overhead.toFixed(2)} ms; ratio ${(percentile(endToEnd, 50) / percentile(direct, 50)).toFixed(2)}× python3 alone`,
    );
  } finally {
    if (executor) await stopProcess(executor.child);
    if (registry) await stopProcess(registry.child);
    await deleteRedisKeys(REDIS_URL, queuePrefix).catch(() => undefined);
    await dropDatabase(databaseUrl).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
