// bench/search: in-process ranking latency over 10,000 generated skills, and REST search throughput
// against the constant-body baseline route of the same registry, in one run.
// Usage: npm run bench:search   (env: BENCH_SEARCH_SKILLS, BENCH_SEARCH_PACKAGES, BENCH_DURATION_S, BENCH_CONNECTIONS)
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { URLSearchParams } from 'node:url';
import autocannon from 'autocannon';
import { benchmarkQueries, generateDocuments } from './generate-documents.mjs';
import { seedSkills } from './seed-skills.mjs';
import { writePackages } from './write-packages.mjs';
import { benchDatabaseUrl, dropDatabase, startRegistryProcess, stopProcess } from '../support/registry-process.mjs';

const SKILLS = Number(process.env.BENCH_SEARCH_SKILLS ?? 10_000);
// Packages compiled and discovered the ordinary way (~30 ms each); the rest are stored through the
// registry's repository. Set BENCH_SEARCH_PACKAGES=10000 to discover all of them (minutes).
const PACKAGES = Math.min(SKILLS, Number(process.env.BENCH_SEARCH_PACKAGES ?? 200));
const ROUNDS = Number(process.env.BENCH_SEARCH_ROUNDS ?? 200);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const P95_TARGET_MS = 5;
const RPS_RATIO_TARGET = 0.5;

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
const ms = (value) => value.toFixed(3).padStart(9);

function inProcess(SearchIndex, documents, queries) {
  let started = performance.now();
  const index = new SearchIndex(documents);
  const buildMs = performance.now() - started;
  for (let round = 0; round < 50; round++) for (const query of queries) index.search(query);
  const latencies = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const query of queries) {
      started = performance.now();
      index.search(query);
      latencies.push(performance.now() - started);
    }
  }
  latencies.sort((a, b) => a - b);
  // Incremental updates: flip statuses of 1,000 skills one at a time, as catalog changes would.
  const upserts = [];
  for (let i = 0; i < 1000; i++) {
    const document = documents[(i * 7919) % documents.length];
    started = performance.now();
    index.upsert({ ...document, status: document.status === 'ACTIVE' ? 'DEPRECATED' : 'ACTIVE' });
    upserts.push(performance.now() - started);
  }
  upserts.sort((a, b) => a - b);
  return {
    buildMs,
    searches: latencies.length,
    p50: quantile(latencies, 0.5),
    p95: quantile(latencies, 0.95),
    p99: quantile(latencies, 0.99),
    max: latencies.at(-1),
    upsertP50: quantile(upserts, 0.5),
    upsertP95: quantile(upserts, 0.95),
  };
}

function searchPath(query, suffix = '') {
  const params = new URLSearchParams({ q: `${query.text}${suffix}` });
  for (const key of ['domain', 'agent', 'status', 'phase', 'limit']) if (query[key] !== undefined) params.set(key, String(query[key]));
  for (const tag of query.tags ?? []) params.append('tag', tag);
  return `/v1/search?${params}`;
}

function load(url, title, nextPath) {
  return new Promise((resolve, reject) => {
    const options = { url, connections: CONNECTIONS, duration: DURATION_S, title };
    if (nextPath) options.requests = [{ method: 'GET', setupRequest: (request) => ({ ...request, path: nextPath() }) }];
    autocannon(options, (error, result) => {
      if (error) return reject(error);
      if (result.non2xx > 0 || result.errors > 0) return reject(new Error(`${title}: ${result.non2xx} non-2xx, ${result.errors} errors`));
      resolve({ title, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 });
    });
  });
}

const documents = generateDocuments(SKILLS);
const queries = benchmarkQueries(documents);
const { SearchIndex } = await import('#search/index.js');
console.log(`in-process: ${SKILLS} generated skills, ${queries.length} queries × ${ROUNDS} rounds ...`);
const local = inProcess(SearchIndex, documents, queries);

const root = await mkdtemp(path.join(os.tmpdir(), 'bench-search-'));
const packagesRoot = path.join(root, 'packages');
const seededRoot = path.join(root, 'seeded-not-on-disk');
const databaseUrl = benchDatabaseUrl();
const env = { DATABASE_URL: databaseUrl, SKILL_PATHS: `${packagesRoot}:${seededRoot}`, BENCH_BASELINE_ROUTE: 'true', LOG_LEVEL: 'error' };
let registry;
try {
  console.log(`REST: writing ${PACKAGES} packages, discovering them, storing ${SKILLS - PACKAGES} more through the repository ...`);
  await writePackages(packagesRoot, documents.slice(0, PACKAGES));
  registry = await startRegistryProcess(env);
  const discoveryMs = registry.startupMs;
  await stopProcess(registry.child);
  let seedMs = 0;
  if (PACKAGES < SKILLS) {
    const started = performance.now();
    await seedSkills(databaseUrl, documents.slice(PACKAGES), seededRoot);
    seedMs = performance.now() - started;
  }
  registry = await startRegistryProcess(env);
  const health = await (await fetch(`${registry.url}/v1/health`)).json();
  let started = performance.now();
  await fetch(`${registry.url}${searchPath({ text: 'warm up the index' })}`);
  const firstSearchMs = performance.now() - started;

  const paths = queries.map((query) => searchPath(query));
  const sizes = [];
  for (const route of paths) {
    const response = await fetch(`${registry.url}${route}`);
    if (response.status !== 200) throw new Error(`${route}: ${response.status} ${await response.text()}`);
    sizes.push(Buffer.byteLength(await response.text()));
  }
  const bytes = Math.round(sizes.reduce((sum, size) => sum + size, 0) / sizes.length);
  let next = 0;
  const rotating = () => paths[next++ % paths.length];
  let unique = 0;
  // Every request a query never seen before (a token that matches nothing is appended), so no
  // response cache can help: the full BM25 pass over the catalog on every request.
  const distinct = () => searchPath(queries[unique % queries.length], ` u${unique++}`);

  await load(`${registry.url}${paths[0]}`, 'warm-up', rotating);
  // The baseline goes through the same setupRequest hook, so the load generator costs the same.
  const baselinePath = `/bench/baseline?bytes=${bytes}`;
  const baseline = await load(`${registry.url}${baselinePath}`, `baseline (${bytes} B)`, () => baselinePath);
  const repeated = await load(
    `${registry.url}${paths[0]}`,
    `search, ${paths.length} realistic queries repeating (response cache)`,
    rotating,
  );
  const uncached = await load(`${registry.url}${paths[0]}`, 'search, every query distinct (no cache)', distinct);

  const cpus = os.cpus();
  console.log(`\nmachine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, node ${process.version}`);
  console.log(`\nin-process (dist/libs/search), ${SKILLS} skills, ${local.searches} searches:`);
  console.log(
    `  index build ${local.buildMs.toFixed(0)} ms; upsert p50 ${local.upsertP50.toFixed(3)} ms, p95 ${local.upsertP95.toFixed(3)} ms`,
  );
  console.log(`  search latency ms: p50${ms(local.p50)}  p95${ms(local.p95)}  p99${ms(local.p99)}  max${ms(local.max)}`);
  const p95Pass = local.p95 <= P95_TARGET_MS;
  console.log(`  p95 ${local.p95.toFixed(3)} ms (target ≤ ${P95_TARGET_MS} ms) ${p95Pass ? 'PASS' : 'FAIL'}`);

  console.log(`\nREST: ${health.skills} skills in the catalog, by status ${JSON.stringify(health.by_status)}`);
  console.log(
    `  ${PACKAGES} discovered from packages (${(discoveryMs / 1000).toFixed(1)} s start-up), ${SKILLS - PACKAGES} stored through SkillsRepository (${(seedMs / 1000).toFixed(1)} s)`,
  );
  console.log(`  first search after start (builds the index): ${firstSearchMs.toFixed(0)} ms`);
  console.log(`  autocannon ${CONNECTIONS} connections × ${DURATION_S} s per run`);
  console.log('  run'.padEnd(60) + 'req/s'.padStart(10) + 'p50 ms'.padStart(9) + 'p99 ms'.padStart(9));
  for (const run of [baseline, repeated, uncached]) {
    console.log(`  ${run.title.padEnd(58)}${run.rps.toFixed(0).padStart(10)}${String(run.p50).padStart(9)}${String(run.p99).padStart(9)}`);
  }
  const ratio = repeated.rps / baseline.rps;
  const uncachedRatio = uncached.rps / baseline.rps;
  const ratioPass = ratio >= RPS_RATIO_TARGET;
  console.log(`  req/s ratio, realistic queries: ${ratio.toFixed(2)} (target ≥ ${RPS_RATIO_TARGET}) ${ratioPass ? 'PASS' : 'FAIL'}`);
  console.log(`  req/s ratio, distinct queries (no cache; informational): ${uncachedRatio.toFixed(2)}`);
  const ok = p95Pass && ratioPass;
  console.log(ok ? '\nall targets met' : '\nsome targets missed');
  process.exitCode = ok ? 0 : 1;
} finally {
  if (registry) await stopProcess(registry.child);
  await dropDatabase(databaseUrl).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
}
