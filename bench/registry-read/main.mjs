// bench/registry-read: read throughput and latency of the registry against a constant-body
// baseline route in the same app, measured in one run. Usage: npm run bench:registry-read
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { generateSkills, skillName } from '../support/generate-skills.mjs';
import { benchDatabaseUrl, dropDatabase, startRegistryProcess, stopProcess } from '../support/registry-process.mjs';

const SKILLS = Number(process.env.BENCH_SKILLS ?? 1000);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

function run(url, title) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, title }, (error, result) => {
      if (error) return reject(error);
      if (result.non2xx > 0 || result.errors > 0) return reject(new Error(`${title}: ${result.non2xx} non-2xx, ${result.errors} errors`));
      resolve({ title, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, bytes: result.throughput.average });
    });
  });
}

async function measure(registryUrl, route) {
  const body = await (await fetch(`${registryUrl}${route}`)).text();
  const bytes = Buffer.byteLength(body);
  const baseline = `${registryUrl}/bench/baseline?bytes=${bytes}`;
  const baselineBytes = Buffer.byteLength(await (await fetch(baseline)).text());
  // Warm both paths, then measure baseline and route back to back.
  await run(`${registryUrl}${route}`, 'warm-up').catch(() => undefined);
  const base = await run(baseline, `baseline (${baselineBytes} B)`);
  const real = await run(`${registryUrl}${route}`, `${route} (${bytes} B)`);
  return { base, real };
}

const root = await mkdtemp(path.join(os.tmpdir(), 'bench-skills-'));
const databaseUrl = benchDatabaseUrl();
let registry;
try {
  console.log(`generating ${SKILLS} skill packages in ${root} ...`);
  await generateSkills(root, SKILLS);
  const env = { DATABASE_URL: databaseUrl, SKILL_PATHS: root, BENCH_BASELINE_ROUTE: 'true' };

  registry = await startRegistryProcess(env);
  const coldStartMs = registry.startupMs;
  await stopProcess(registry.child);
  registry = await startRegistryProcess(env);
  const warmStartMs = registry.startupMs;
  const listed = await (await fetch(`${registry.url}/v1/health`)).json();
  console.log(`catalog: ${listed.skills} skills, by status ${JSON.stringify(listed.by_status)}`);

  const routes = [`/v1/skills/${skillName(Math.floor(SKILLS / 2))}`, '/v1/skills?domain=mechanical&tag=bench&phase=2&limit=20'];
  const rows = [];
  for (const route of routes) {
    const { base, real } = await measure(registry.url, route);
    rows.push({ route, base, real });
  }

  const cpus = os.cpus();
  console.log(
    `\nmachine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, node ${process.version}; autocannon ${CONNECTIONS} connections × ${DURATION_S} s per route`,
  );
  console.log(
    `start-up with ${SKILLS} packages: cold (empty database) ${(coldStartMs / 1000).toFixed(2)} s, warm ${(warmStartMs / 1000).toFixed(2)} s  (target ≤ 15 s)`,
  );
  console.log('\nroute'.padEnd(62) + 'req/s'.padStart(10) + 'p50 ms'.padStart(9) + 'p99 ms'.padStart(9));
  let ok = coldStartMs <= 15000;
  for (const { route, base, real } of rows) {
    for (const r of [base, real]) {
      console.log(`${r.title.padEnd(61)}${r.rps.toFixed(0).padStart(10)}${String(r.p50).padStart(9)}${String(r.p99).padStart(9)}`);
    }
    const rpsRatio = real.rps / base.rps;
    const p99Ratio = real.p99 / Math.max(base.p99, 1);
    const pass = rpsRatio >= 0.8 && p99Ratio <= 1.5;
    ok &&= pass;
    console.log(
      `  ${route}: req/s ratio ${rpsRatio.toFixed(2)} (target ≥ 0.80), p99 ratio ${p99Ratio.toFixed(2)} (target ≤ 1.50) ${pass ? 'PASS' : 'FAIL'}\n`,
    );
  }
  console.log(ok ? 'all targets met' : 'some targets missed');
  process.exitCode = ok ? 0 : 1;
} finally {
  if (registry) await stopProcess(registry.child);
  await dropDatabase(databaseUrl).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
}
