// bench/registry-read: hot reads of the registry against a bare Fastify process (its own process)
// serving exactly the bytes and headers the registry served for each route, measured in one run,
// with AGENT_TOKENS unset and set. Usage: npm run bench:registry-read
// Env: BENCH_SKILLS (1000), BENCH_DURATION_S (10), BENCH_ROUNDS (5: slices, registry and bare interleaved), BENCH_CONNECTIONS (50), BENCH_AUTH (both|unset|set),
// BENCH_ROUTES (comma-separated substrings: only the routes containing one).
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { cpuMs } from '../support/cpu.mjs';
import { generateSkills, skillName } from '../support/generate-skills.mjs';
import { ADMIN_TOKEN, benchDatabaseUrl, dropDatabase, startRegistryProcess, stopProcess } from '../support/registry-process.mjs';
import { median } from '../support/statistics.mjs';

const SKILLS = Number(process.env.BENCH_SKILLS ?? 1000);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const WARM_UP_S = 2;
/**
 * Load on every route of a registry just started, before any is measured: in its first 2 s under
 * load a fresh registry's other threads (compiler, GC helpers) spent about 6 µs per request more,
 * and later next to none; that fell on whichever route came first.
 */
const SETTLE_S_PER_ROUTE = 1;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const AUTH_MODES = { both: ['unset', 'set'], unset: ['unset'], set: ['set'] }[process.env.BENCH_AUTH ?? 'both'];
const AGENT_TOKEN = 'bench-agent-token-0001';
/** Headers that belong to the connection or the moment, not to the response: the bare server makes its own. */
const NOT_REPLAYED = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

const tooled = skillName(500); // requires a tool: its body carries tools_status, computed per request
const deprecated = skillName(502); // DEPRECATED with a successor and a sunset: Deprecation, Sunset, Link
const ROUTES = [
  `/v1/skills/${tooled}`,
  `/v1/skills/${skillName(501)}/versions`,
  `/v1/skills/${deprecated}/versions/1.0.0`,
  '/v1/skills?domain=mechanical&tag=bench&phase=2&limit=20',
  '/v1/search?q=stress%20limits&limit=10',
].filter((route) => !process.env.BENCH_ROUTES || process.env.BENCH_ROUTES.split(',').some((part) => route.includes(part)));

/**
 * Response times in 10 µs buckets (up to 2 s): autocannon's own percentiles are whole milliseconds,
 * too coarse when both servers answer in 1–2 ms.
 */
function latencyHistogram() {
  const buckets = new Uint32Array(200_000);
  let count = 0;
  return {
    record(ms) {
      buckets[Math.min(Math.floor(ms * 100), buckets.length - 1)]++;
      count++;
    },
    percentile(p) {
      const rank = Math.ceil((p / 100) * count);
      let seen = 0;
      for (let i = 0; i < buckets.length; i++) {
        seen += buckets[i];
        if (seen >= rank) return (i + 1) / 100;
      }
      return buckets.length / 100;
    },
  };
}

/**
 * Loads `url` for `duration` s, recording response times into `latencies`: requests answered and
 * the server's CPU time spent (`pid`), a figure that other load on a shared machine disturbs far
 * less than req/s.
 */
function load(url, headers, duration, pid, latencies = latencyHistogram()) {
  const cpuBefore = cpuMs(pid);
  return new Promise((resolve, reject) => {
    const instance = autocannon({ url, connections: CONNECTIONS, duration, headers }, (error, result) => {
      if (error) return reject(error);
      if (result.non2xx > 0 || result.errors > 0) return reject(new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`));
      resolve({ requests: result.requests.total, seconds: result.duration, cpuMs: cpuMs(pid) - cpuBefore });
    });
    instance.on('response', (_client, _status, _bytes, responseTimeMs) => latencies.record(responseTimeMs));
  });
}

/**
 * The registry and the bare server on one route, in ROUNDS interleaved slices (the order alternating),
 * so that a change in the machine's other load falls on both alike: each one's req/s, p99 and CPU
 * per request over all its slices, and the req/s ratio as the median of the slices' ratios.
 */
async function compare(route, headers, bare, registry) {
  const slice = Math.max(1, Math.round(DURATION_S / ROUNDS));
  const sides = [bare, registry].map((server) => ({ ...server, latencies: latencyHistogram(), requests: 0, seconds: 0, cpuMs: 0 }));
  const ratios = [];
  for (let round = 0; round < ROUNDS; round++) {
    const rps = new Map();
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const result = await load(`${side.url}${route}`, headers, slice, side.pid, side.latencies);
      side.requests += result.requests;
      side.seconds += result.seconds;
      side.cpuMs += result.cpuMs;
      rps.set(side, result.requests / result.seconds);
    }
    ratios.push(rps.get(sides[1]) / rps.get(sides[0]));
  }
  const [base, real] = sides.map((side) => ({
    rps: side.requests / side.seconds,
    p99: side.latencies.percentile(99),
    cpuUs: (side.cpuMs * 1000) / Math.max(side.requests, 1),
  }));
  return { base, real, rpsRatio: median(ratios) };
}

/** The registry's answer to `route`, as the bare server replays it. */
async function record(registryUrl, route, headers) {
  const response = await fetch(`${registryUrl}${route}`, { headers });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${route}: ${response.status} ${body}`);
  const replayed = {};
  for (const [name, value] of response.headers) if (!NOT_REPLAYED.has(name)) replayed[name] = value;
  return { url: route, status: response.status, headers: replayed, body };
}

async function startBareServer(responses) {
  const child = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'bare-server.mjs'), { stdio: 'inherit' });
  const port = await new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
    child.send({ responses });
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

async function admin(registryUrl, method, route, body) {
  const response = await fetch(`${registryUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status >= 300) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
}

/** Every route of one registry process against the bare server, back to back per route. */
async function measureMode({ url: registryUrl, child }, mode) {
  const headers = mode === 'set' ? { authorization: `Bearer ${AGENT_TOKEN}` } : {};
  const responses = [];
  for (const route of ROUTES) responses.push(await record(registryUrl, route, headers));
  const bare = await startBareServer(responses);
  const rows = [];
  try {
    for (const route of ROUTES) await load(`${registryUrl}${route}`, headers, SETTLE_S_PER_ROUTE, child.pid);
    for (const { url: route, headers: recordedHeaders, body } of responses) {
      const replayed = await record(bare.url, route, headers);
      if (replayed.body !== body) throw new Error(`bare server does not replay ${route} byte for byte`);
      await load(`${registryUrl}${route}`, headers, WARM_UP_S, child.pid);
      await load(`${bare.url}${route}`, headers, WARM_UP_S, bare.child.pid);
      const measured = await compare(route, headers, { url: bare.url, pid: bare.child.pid }, { url: registryUrl, pid: child.pid });
      rows.push({ route, mode, bytes: Buffer.byteLength(body), headers: recordedHeaders, ...measured, load: os.loadavg()[0] });
    }
  } finally {
    await stopProcess(bare.child);
  }
  return rows;
}

const root = await mkdtemp(path.join(os.tmpdir(), 'bench-skills-'));
const databaseUrl = benchDatabaseUrl();
let registry;
try {
  console.log(`generating ${SKILLS} skill packages in ${root} ...`);
  await generateSkills(root, SKILLS);
  const env = { DATABASE_URL: databaseUrl, SKILL_PATHS: root, AGENT_TOKENS: '' };

  registry = await startRegistryProcess(env);
  const coldStartMs = registry.startupMs;
  for (const name of [deprecated, skillName(503)]) {
    await admin(registry.url, 'POST', `/v1/admin/skills/${name}/versions/1.0.0/promote`, { force: true, reason: 'bench' });
  }
  const sunset = new Date(Date.now() + 90 * 86_400_000).toISOString();
  await admin(registry.url, 'POST', `/v1/admin/skills/${deprecated}/deprecate`, {
    reason: 'bench: replaced',
    successor: `${skillName(503)}@1.0.0`,
    sunset,
  });
  await stopProcess(registry.child);
  registry = undefined;

  const rows = [];
  let warmStartMs = 0;
  for (const mode of AUTH_MODES) {
    registry = await startRegistryProcess(mode === 'set' ? { ...env, AGENT_TOKENS: `bench-agent=${AGENT_TOKEN}` } : env);
    warmStartMs ||= registry.startupMs;
    rows.push(...(await measureMode(registry, mode)));
    await stopProcess(registry.child);
    registry = undefined;
  }

  const cpus = os.cpus();
  console.log(
    `\nmachine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, node ${process.version}; autocannon ${CONNECTIONS} connections × ${DURATION_S} s per route and server, in ${ROUNDS} interleaved slices`,
  );
  console.log(
    `start-up with ${SKILLS} packages: cold (empty database) ${(coldStartMs / 1000).toFixed(2)} s, warm ${(warmStartMs / 1000).toFixed(2)} s  (target ≤ 15 s)`,
  );
  console.log('baseline: a bare Fastify process serving the bytes and headers the registry served for each route\n');
  const header = `${'route'.padEnd(58)}${'auth'.padEnd(6)}${'bytes'.padStart(6)}  ${'registry req/s'.padStart(14)}${'bare req/s'.padStart(11)}${'ratio'.padStart(7)}  ${'registry p99'.padStart(12)}${'bare p99'.padStart(10)}${'ratio'.padStart(7)}  ${'CPU µs/req registry, bare'.padStart(26)}${'load'.padStart(6)}`;
  console.log(header);
  let ok = coldStartMs <= 15000;
  for (const { route, mode, bytes, base, real, rpsRatio, load: loadAverage } of rows) {
    const p99Ratio = real.p99 / base.p99;
    const pass = rpsRatio >= 0.8 && p99Ratio <= 1.5;
    ok &&= pass;
    console.log(
      `${route.padEnd(58)}${(mode === 'set' ? 'token' : 'none').padEnd(6)}${String(bytes).padStart(6)}  ${real.rps.toFixed(0).padStart(14)}${base.rps.toFixed(0).padStart(11)}${rpsRatio.toFixed(2).padStart(7)}  ${`${real.p99.toFixed(2)} ms`.padStart(12)}${`${base.p99.toFixed(2)} ms`.padStart(10)}${p99Ratio.toFixed(2).padStart(7)}  ${`${real.cpuUs.toFixed(0)}, ${base.cpuUs.toFixed(0)}`.padStart(26)}${loadAverage.toFixed(1).padStart(6)}  ${pass ? 'PASS' : 'FAIL'}`,
    );
  }
  console.log(
    "\ntargets: req/s ratio ≥ 0.80 (the median of the slices' ratios), p99 ratio ≤ 1.50 (p99 from every response time, 10 µs buckets)",
  );
  console.log('load: the 1-minute load average after each route (other work on this machine skews req/s; CPU µs/req much less)');
  const replayedHeaders = [...new Set(rows.flatMap((row) => Object.keys(row.headers)))].sort();
  console.log(`headers replayed by the bare server: ${replayedHeaders.join(', ')}`);
  console.log(ok ? 'all targets met' : 'some targets missed');
  process.exitCode = ok ? 0 : 1;
} finally {
  if (registry) await stopProcess(registry.child);
  await dropDatabase(databaseUrl).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
}
