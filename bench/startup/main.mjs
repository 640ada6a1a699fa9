// bench/startup: `npm start` until everything answers — registry /readyz (catalog discovered), executor
// /readyz, every adapter /healthz — for a first start (no dist/, no build caches, empty database) and a
// second start with unchanged sources, in one run, against the 8 s target for the second; also a start
// after one source file changed, checked to have rebuilt it. Runs on private copies of the repository,
// a private database, queue prefix, package cache and free ports, so it never touches the shared
// checkout, database or default ports. Usage: npm run bench:startup
//   BENCH_STARTUP_ROUNDS (default 3): rounds, medians reported.
//   BENCH_STARTUP_COMPARE_REF=<commit>: also measure, alternating in the same run, the start-up files
//   (scripts/start.sh, run-all.mjs, build-if-changed.mjs, tsconfig*.json) of that commit, as a baseline.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { deleteRedisKeys } from '../support/redis-cleanup.mjs';
import { benchDatabaseUrl, dropDatabase, freePort, REPO_ROOT } from '../support/registry-process.mjs';
import { createWorkspace, snapshotSources } from './workspace.mjs';
import { median } from '../support/statistics.mjs';

const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 3);
const COMPARE_REF = process.env.BENCH_STARTUP_COMPARE_REF || null;
const CLOCK_TICKS = 100;
const TARGET_MS = 8000;
const READY_TIMEOUT_MS = Number(process.env.BENCH_STARTUP_TIMEOUT_S ?? 300) * 1000;
const STOP_TIMEOUT_MS = 45_000;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADAPTERS = ['spice', 'calculix', 'gmsh', 'kicad'];
// The phases of start.sh, from its xtrace: `+` marks the commands of start.sh itself, deeper levels
// are command substitutions inside them.
const TRACE = /^(\++)\[startup-trace (\d+\.\d+)\] (.*)$/;
// Bash reads BASH_ENV before a script: it switches xtrace on, time-stamped, for start.sh only (bash
// takes no PS4 from the environment when run as root, and the shells start.sh starts must not trace).
const TRACE_SETUP = "unset BASH_ENV; PS4='+[startup-trace ${EPOCHREALTIME}] '; set -x\n";

// Whatever happens (error, Ctrl-C, kill), the process groups started here are killed and what was
// created is removed.
const groups = new Set();
const cleanups = [];
function killGroups(signal) {
  for (const pid of groups) {
    try {
      process.kill(-pid, signal);
    } catch {
      groups.delete(pid); // already gone
    }
  }
}
/** Even if this process is killed outright (SIGKILL, OOM), a watchdog kills the group once it is gone. */
function watchGroup(pgid) {
  const script = `while kill -0 ${process.pid} 2>/dev/null && kill -0 -- -${pgid} 2>/dev/null; do sleep 1; done; kill -KILL -- -${pgid} 2>/dev/null; true`;
  spawn('bash', ['-c', script], { detached: true, stdio: 'ignore' }).unref();
}
/** Kills what runs and undoes what was registered in `cleanups` since `mark` (default: everything). */
async function cleanUp(mark = 0) {
  killGroups('SIGKILL');
  while (cleanups.length > mark)
    await cleanups
      .pop()()
      .catch((error) => console.error(`clean-up: ${error.message}`));
}
process.on('exit', () => killGroups('SIGKILL'));
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping what the benchmark started`);
    cleanUp().finally(() => process.exit(130));
  });
}

/** Runs `npm start` in `root` until every endpoint answers; stops it (Ctrl-C); returns the timings. */
async function timedStart(root, env, label) {
  const started = performance.now();
  const startedEpochMs = Date.now();
  const traceSetup = path.join(root, 'node_modules/.cache/bench-startup-trace.sh');
  await mkdir(path.dirname(traceSetup), { recursive: true });
  await writeFile(traceSetup, TRACE_SETUP);
  // `npm start` as a user types it (npm's own start-up included), in its own process group: npm, start.sh,
  // the build, run-all and every service.
  const child = spawn('npm', ['start'], {
    cwd: root,
    env: { ...process.env, ...env, BASH_ENV: traceSetup },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  groups.add(child.pid);
  watchGroup(child.pid);
  const output = [];
  const trace = [];
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = '';
    stream.on('data', (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const traced = TRACE.exec(line);
        if (!traced) output.push(line);
        else if (traced[1] === '+') trace.push({ atMs: Number(traced[2]) * 1000 - startedEpochMs, command: traced[3] });
      }
    });
  }
  let exited = null;
  const exit = new Promise((resolve) => child.on('exit', (code, signal) => resolve((exited = signal ?? code))));

  const endpoints = {
    registry: `http://127.0.0.1:${env.PORT}/readyz`,
    executor: `http://127.0.0.1:${env.EXECUTOR_PORT}/readyz`,
    ...Object.fromEntries(ADAPTERS.map((name) => [name, `http://127.0.0.1:${env[`${name.toUpperCase()}_PORT`]}/healthz`])),
  };
  const readyAt = {};
  let skills = 0;
  let runAllAtMs = null;
  let cpuAtRunAll = null;
  try {
    for (;;) {
      if (exited !== null) throw new Error(`npm start exited (${exited}) before everything was ready`);
      if (performance.now() - started > READY_TIMEOUT_MS) throw new Error(`not ready within ${READY_TIMEOUT_MS / 1000} s`);
      const pending = Object.entries(endpoints).filter(([name]) => readyAt[name] === undefined);
      await Promise.all(
        pending.map(async ([name, url]) => {
          if ((await statusOf(url)) !== 200) return;
          if (name === 'registry') {
            // Ready means discovered: the catalog lists the packages under skills/.
            const listed = await json(`http://127.0.0.1:${env.PORT}/v1/skills?limit=100`);
            if (!listed || listed.items.length === 0) return;
            skills = listed.items.length;
          }
          readyAt[name] = performance.now() - started;
        }),
      );
      if (runAllAtMs === null && trace.some((entry) => phaseName(entry.command) === 'processes')) {
        runAllAtMs = performance.now() - started;
        cpuAtRunAll = groupCpuMs(child.pid);
      }
      if (Object.keys(readyAt).length === Object.keys(endpoints).length) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch (error) {
    console.error(`${label}: ${error.message}; its last output:\n${output.slice(-60).join('\n')}`);
    await stop(child, exit);
    throw error;
  }
  const totalMs = Math.max(...Object.values(readyAt));
  const cpu = groupCpuMs(child.pid);
  await stop(child, exit);
  return {
    label,
    totalMs,
    readyAt,
    skills,
    phases: phasesOf(trace, totalMs),
    // CPU of the whole process tree (both cores): before run-all (install check, build) and after it.
    cpu: { total: cpu.total, build: cpuAtRunAll?.total ?? cpu.total, processes: cpu.total - (cpuAtRunAll?.total ?? cpu.total) },
    output,
  };
}

async function stop(child, exit) {
  // Ctrl-C: SIGINT to the whole group, as a terminal does; SIGKILL to what is left after the grace time.
  try {
    process.kill(-child.pid, 'SIGINT');
  } catch {
    /* gone */
  }
  const deadline = performance.now() + STOP_TIMEOUT_MS;
  await Promise.race([exit, new Promise((resolve) => setTimeout(resolve, STOP_TIMEOUT_MS))]);
  while (groupMembers(child.pid) > 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    /* all gone */
  }
  groups.delete(child.pid);
}

function groupMembers(pgid) {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') count++;
    } catch {
      // gone meanwhile
    }
  }
  return count;
}

/**
 * CPU ms used so far by process group `pgid`: every live member's own and reaped children's time (a
 * finished npm, tsc or prisma is in the cutime of the shell that waited for it). Linux /proc.
 */
function groupCpuMs(pgid) {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      if (Number(fields[2]) !== pgid) continue;
      total += ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS;
    } catch {
      // gone meanwhile
    }
  }
  return { total };
}

/** GET with node:http (lighter than fetch on a machine busy starting everything): { status, body }. */
function get(url) {
  return new Promise((resolve) => {
    const request = http.get(url, { timeout: 2000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode, body }));
      response.on('error', () => resolve({ status: 0, body: '' }));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve({ status: 0, body: '' }));
  });
}

async function statusOf(url) {
  return (await get(url)).status;
}

async function json(url) {
  const { status, body } = await get(url);
  try {
    return status === 200 ? JSON.parse(body) : null;
  } catch {
    return null;
  }
}

/** Time spent in each top-level command of start.sh; the last one (run-all) lasts until ready. */
function phasesOf(traced, totalMs) {
  // A command start.sh runs in the background (`… &`, then `wait`) is traced by its subshell whenever
  // that gets to run: it marks no phase; the `wait` for it does.
  const background = traced.some((entry) => /^wait\b/.test(entry.command));
  const trace = traced.filter((entry) => !(background && entry.command.includes('install-programs'))).sort((a, b) => a.atMs - b.atMs);
  const phases = [];
  for (let i = 0; i < trace.length; i++) {
    const end = i + 1 < trace.length ? trace[i + 1].atMs : totalMs;
    const name = phaseName(trace[i].command);
    if (!name) continue;
    const last = phases.at(-1);
    if (last?.name === name) last.ms += end - trace[i].atMs;
    else phases.push({ name, ms: end - trace[i].atMs });
  }
  // npm's own start-up, until start.sh runs its first command.
  if (trace.length > 0) phases.unshift({ name: 'npm', ms: trace[0].atMs });
  return phases;
}

function phaseName(command) {
  if (command.includes('install-programs') || /^wait\b/.test(command)) return 'programs';
  if (command.startsWith('exec node scripts/run-all.mjs') || command.startsWith('node scripts/run-all.mjs')) return 'processes';
  if (/\bnpm (ci|install)\b/.test(command)) return 'npm ci';
  if (/\b(npm run|build-if-changed|tsc|prisma)\b/.test(command)) return 'build';
  return null;
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

function describe(result) {
  const phases = result.phases.map((phase) => `${phase.name} ${seconds(phase.ms)}`).join(', ');
  const runAll = runAllStartMs(result);
  const services = Object.entries(result.readyAt)
    .sort((a, b) => a[1] - b[1])
    .map(([name, ms]) => `${name} ${seconds(ms - runAll)}`)
    .join(', ');
  return (
    `${seconds(result.totalMs).padStart(7)}  [${phases}]  CPU ${seconds(result.cpu.build)} + ${seconds(result.cpu.processes)}` +
    `  ready after run-all started: ${services}`
  );
}

function runAllStartMs(result) {
  let at = 0;
  for (const phase of result.phases) {
    if (phase.name === 'processes') return at;
    at += phase.ms;
  }
  return at;
}

/** First start, second start, start after an edit: one fresh workspace, database, queue prefix and set of ports. */
async function measureStarts(snapshot, compareRef) {
  const mark = cleanups.length;
  try {
    const workspace = await createWorkspace(snapshot.root, REPO_ROOT, compareRef);
    cleanups.push(workspace.remove);
    const databaseUrl = benchDatabaseUrl();
    cleanups.push(() => dropDatabase(databaseUrl));
    const queuePrefix = `bench-startup-${randomBytes(4).toString('hex')}`;
    cleanups.push(() => deleteRedisKeys(REDIS_URL, queuePrefix));
    const packageCache = await mkdtemp(path.join(os.tmpdir(), 'bench-startup-packages-'));
    cleanups.push(() => rm(packageCache, { recursive: true, force: true }));

    const env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      QUEUE_PREFIX: queuePrefix,
      PACKAGE_CACHE_DIR: packageCache,
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      GRPC_PORT: String(await freePort()),
      EXECUTOR_PORT: String(await freePort()),
      ADMIN_TOKENS: 'bench=bench-admin-token',
      TOOL_ADAPTERS: undefined, // not inherited: run-all derives it from the adapters it starts
    };
    for (const name of ADAPTERS) env[`${name.toUpperCase()}_PORT`] = String(await freePort());

    const first = await timedStart(workspace.root, env, 'first start');
    const second = await timedStart(workspace.root, env, 'second start');
    // A changed source must be rebuilt: edit one file of the registry, start, and look for the edit in dist/.
    const marker = `bench_startup_${randomBytes(4).toString('hex')}`;
    const source = path.join(workspace.root, 'apps/registry/src/main.ts');
    await writeFile(source, `${await readFile(source, 'utf8')}\nexport const BENCH_STARTUP_EDIT = '${marker}';\n`);
    const changed = await timedStart(workspace.root, env, 'start after one source changed');
    const emitted = await readFile(path.join(workspace.root, 'dist/apps/registry/src/main.js'), 'utf8');
    if (!emitted.includes(marker)) throw new Error('the edited apps/registry/src/main.ts was not rebuilt into dist/');
    // The bundle too, where these start-up files make one (a compared commit's may not).
    const bundled = await readFile(path.join(workspace.root, 'dist/bundle/registry.js'), 'utf8').catch(() => null);
    if (existsSync(path.join(workspace.root, 'scripts/bundle.mjs')) && !bundled?.includes(marker))
      throw new Error("the edited apps/registry/src/main.ts was not rebuilt into the registry's bundle");
    return { first, second, changed, skills: first.skills };
  } finally {
    await cleanUp(mark);
  }
}

function summary(rounds) {
  return {
    first: median(rounds.map((r) => r.first.totalMs)),
    second: median(rounds.map((r) => r.second.totalMs)),
    changed: median(rounds.map((r) => r.changed.totalMs)),
    secondCpu: median(rounds.map((r) => r.second.cpu.total)),
  };
}

try {
  const cpus = os.cpus();
  console.log(`machine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, node ${process.version}; ${ROUNDS} round(s), medians reported`);
  const snapshot = await snapshotSources(REPO_ROOT);
  cleanups.push(snapshot.remove);
  const variants = COMPARE_REF ? [COMPARE_REF, null] : [null];
  const results = new Map(variants.map((variant) => [variant, []]));
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate which goes first, so a change of load on the machine does not favour one.
    for (const variant of i % 2 === 0 ? variants : [...variants].reverse()) {
      const starts = await measureStarts(snapshot, variant);
      results.get(variant).push(starts);
      console.log(
        `\nround ${i + 1}${COMPARE_REF ? `, start-up files of ${variant ?? 'the working tree'}` : ''}: ${starts.skills} skills listed`,
      );
      for (const result of [starts.first, starts.second, starts.changed]) console.log(`  ${result.label.padEnd(31)}${describe(result)}`);
    }
  }
  const now = summary(results.get(null));
  const ok = now.second <= TARGET_MS;
  const ratio = (ms) => `${(ms / TARGET_MS).toFixed(2)}× the 8 s target`;
  console.log(`\nnpm start to ready (median of ${ROUNDS}):`);
  console.log(`  first start (no dist, no build caches, empty database) ${seconds(now.first).padStart(7)}  = ${ratio(now.first)}`);
  console.log(
    `  second start (sources unchanged)                       ${seconds(now.second).padStart(7)}  = ${ratio(now.second)} ${ok ? 'PASS' : 'FAIL'}`,
  );
  console.log(`  start after one source changed (rebuilt, checked)      ${seconds(now.changed).padStart(7)}  = ${ratio(now.changed)}`);
  console.log(`  second start / first start: ${(now.second / now.first).toFixed(2)}; CPU of the second start ${seconds(now.secondCpu)}`);
  if (COMPARE_REF) {
    const base = summary(results.get(COMPARE_REF));
    console.log(`\nbaseline: start-up files of ${COMPARE_REF}, same run (median of ${ROUNDS}):`);
    for (const key of ['first', 'second', 'changed']) {
      console.log(
        `  ${key.padEnd(8)} ${seconds(base[key]).padStart(7)} → ${seconds(now[key]).padStart(7)}  (${(now[key] / base[key]).toFixed(2)}×)`,
      );
    }
    console.log(`  CPU of the second start ${seconds(base.secondCpu)} → ${seconds(now.secondCpu)}`);
  }
  process.exitCode = ok ? 0 : 1;
} catch (error) {
  console.error(error.stack ?? error);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
