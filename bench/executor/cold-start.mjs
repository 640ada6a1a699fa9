// bench/executor/cold-start.mjs: what the first execution of a version costs on an executor that has
// never seen it (fetch the package from the store, verify, materialise, load the handler) against
// the next execution of the same version, in one run. The four catalog skills that need no tool
// adapter are the packages, each published under N versions so that every first run is a new package.
// Usage: npm run build && node bench/executor/cold-start.mjs   (BENCH_COLD_VERSIONS=10)
import { chmod, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_TOKEN, REPO_ROOT, benchDatabaseUrl, dropDatabase, startRegistryProcess, stopProcess } from '../support/registry-process.mjs';
import { startExecutorProcess } from '../support/executor-process.mjs';
import { deleteRedisKeys } from '../support/redis-cleanup.mjs';

const VERSIONS = Number(process.env.BENCH_COLD_VERSIONS ?? 10);
const SKILLS = ['firmware/check_memory_budget', 'firmware/generate_scaffold', 'firmware/validate_pinmap', 'simulation/compare_results'];
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];
const ms = (value) => `${value.toFixed(1)} ms`;

async function writePackages(root) {
  const versions = [];
  for (const skill of SKILLS) {
    for (let v = 0; v < VERSIONS; v++) {
      const [domain, name] = skill.split('/');
      const dir = path.join(root, `v${v}`, domain, name);
      await cp(path.join(REPO_ROOT, 'skills', skill), dir, { recursive: true, filter: (source) => !source.includes('node_modules') });
      const definition = JSON.parse(await readFile(path.join(dir, 'definition.json'), 'utf8'));
      definition.version = `1.${v}.0`;
      await writeFile(path.join(dir, 'definition.json'), JSON.stringify(definition, null, 2));
      versions.push({ name: definition.name, version: definition.version, input: definition.examples[0].input });
    }
  }
  return versions;
}

async function main() {
  const root = await mkdtemp(path.join(os.tmpdir(), 'bench-cold-'));
  const cache = await mkdtemp(path.join(os.tmpdir(), 'bench-cold-cache-'));
  // mkdtemp makes it 0700; the sandbox user must traverse the package cache (else the executor warns that script tools cannot run).
  await chmod(cache, 0o755);
  const databaseUrl = benchDatabaseUrl();
  const queuePrefix = `bench-cold-${process.pid}`;
  let registry;
  let executor;
  try {
    const versions = await writePackages(root);
    const roots = Array.from({ length: VERSIONS }, (_, v) => path.join(root, `v${v}`));
    const env = { DATABASE_URL: databaseUrl, REDIS_URL, QUEUE_PREFIX: queuePrefix, SKILL_PATHS: roots.join(':') };
    registry = await startRegistryProcess(env);
    const post = async (p, body) => {
      const response = await fetch(`${registry.url}${p}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    };
    // Versions of one skill share their name: promote each by force (its examples are the catalog's own).
    for (const { name, version } of versions) {
      const promoted = await post(`/v1/admin/skills/${name}/versions/${version}/promote`, { force: true, reason: 'bench' });
      if (promoted.status !== 200) throw new Error(`promote ${name} ${version}: ${JSON.stringify(promoted.body)}`);
    }
    executor = await startExecutorProcess({ ...env, PACKAGE_CACHE_DIR: cache, EXECUTOR_CONCURRENCY: '1' });
    const execute = async ({ name, version, input }) => {
      const started = performance.now();
      const answer = await post(`/v1/skills/${name}/executions?wait=30`, { input, version });
      if (answer.body.status !== 'SUCCEEDED') throw new Error(`${name} ${version}: ${JSON.stringify(answer.body)}`);
      return performance.now() - started;
    };
    // Warm the executor's threads and the shared SDK once, on a version that is then left out.
    await execute(versions[0]);
    const cold = [];
    const warm = [];
    for (const version of versions.slice(1)) {
      cold.push(await execute(version));
      warm.push(await execute(version));
    }
    const added = cold.map((value, index) => value - warm[index]);
    console.log(
      `executor cold start: ${cold.length} versions of ${SKILLS.length} catalog packages, one executor (concurrency 1), ${os.cpus().length} cores`,
    );
    console.log(`first execution of a version   p50 ${ms(percentile(cold, 50))}  p99 ${ms(percentile(cold, 99))}`);
    console.log(`next execution (warm)          p50 ${ms(percentile(warm, 50))}  p99 ${ms(percentile(warm, 99))}`);
    const p50 = percentile(added, 50);
    console.log(
      `added by a cold start          p50 ${ms(p50)}  p99 ${ms(percentile(added, 99))}  (target p50 <= 300 ms: ${p50 <= 300 ? 'PASS' : 'FAIL'})`,
    );
  } finally {
    if (executor) await stopProcess(executor.child);
    if (registry) await stopProcess(registry.child);
    await dropDatabase(databaseUrl).catch(() => undefined);
    await deleteRedisKeys(REDIS_URL, queuePrefix).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
    await rm(cache, { recursive: true, force: true });
  }
}

await main();
