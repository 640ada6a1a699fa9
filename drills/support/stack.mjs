// The built registry, executor and spice adapter as supervised child processes: every exit the
// drill did not cause is recorded (with the tail of the process's log, which usually names the
// error) and, when asked, the process is started again on the same port so the drill can go on
// measuring. Logs go to files, not to the drill's output.
import { spawn } from 'node:child_process';
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { startExecutorProcess } from '../../bench/support/executor-process.mjs';
import { httpClient } from '../../bench/support/http-client.mjs';
import { ADMIN_TOKEN, freePort, REPO_ROOT, startRegistryProcess } from '../../bench/support/registry-process.mjs';
import { serviceEntry } from '../../scripts/service-entries.mjs';
import { sleep, waitFor } from './harness.mjs';

export { ADMIN_TOKEN, freePort, REPO_ROOT };
export const TERMINAL = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);

/** A log file that also remembers its last few KB (shown when the process dies unexpectedly). */
function logSink(file) {
  const stream = createWriteStream(file, { flags: 'a' });
  let tail = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      tail = (tail + chunk).slice(-64_000);
      stream.write(chunk, done);
    },
  });
  sink.tail = () => tail;
  sink.file = file;
  return sink;
}

/** The error a process died of, from the output since its last start: the first error line and its code. */
function lastError(tail) {
  const since = tail.slice(tail.lastIndexOf('\n==== ') + 1);
  const lines = since.split('\n');
  const message = lines.find((l) => /^\s*(\w*Error|error)(\s\[\w+\])?: /.test(l)) ?? lines.filter(Boolean).at(-1) ?? '';
  const code = /\bcode: '([^']+)'/.exec(since)?.[1];
  return `${message.trim().slice(0, 200)}${code ? ` (code ${code})` : ''}`;
}

/**
 * Supervises one process. `launch(port, log)` starts it and resolves with { child, url? }.
 * Returns { start(), kill9(), stop(), restart(), alive(), pid(), url, port, exits, name }.
 */
function supervised(name, launch, { logDir, restartOnExit = false }) {
  const log = logSink(path.join(logDir, `${name}.log`));
  const handle = { name, exits: [], port: 0, url: null, child: null, restarts: 0 };
  let expected = false;
  let closing = false;
  let restarting = null;

  const watch = (child) => {
    child.once('exit', (code, signal) => {
      if (expected || closing || handle.child !== child) return;
      const exit = { name, code, signal, at: Date.now(), error: lastError(log.tail()) };
      handle.exits.push(exit);
      console.log(`!! ${name} (pid ${child.pid}) exited unexpectedly: code ${code} signal ${signal}: ${exit.error}`);
      if (restartOnExit) restarting = restartLoop();
    });
  };
  async function restartLoop() {
    const deadline = Date.now() + 120_000;
    while (!closing && Date.now() < deadline) {
      try {
        await handle.start();
        handle.restarts += 1;
        console.log(`!! ${name} started again (pid ${handle.child.pid})`);
        return;
      } catch (error) {
        console.log(`!! ${name} could not start again yet: ${String(error.message).slice(0, 160)}`);
        await sleep(1000);
      }
    }
  }

  handle.start = async () => {
    if (!handle.port) handle.port = await freePort();
    expected = false;
    log.write(`\n==== ${new Date().toISOString()} starting ${name}\n`);
    const started = await launch(handle.port, log);
    handle.child = started.child;
    handle.url = started.url ?? null;
    watch(started.child);
    return handle;
  };
  handle.alive = () => handle.child !== null && handle.child.exitCode === null && handle.child.signalCode === null;
  handle.pid = () => handle.child?.pid;
  const waitExit = (child, ms) =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve(true)
      : Promise.race([new Promise((resolve) => child.once('exit', () => resolve(true))), sleep(ms, false)]);
  /** kill -9, as a crash; resolves once the process is gone. */
  handle.kill9 = async () => {
    expected = true;
    const child = handle.child;
    if (!child) return;
    child.kill('SIGKILL');
    await waitExit(child, 10_000);
  };
  /** SIGTERM, then SIGKILL when it is still there after `graceMs`. */
  handle.stop = async (graceMs = 15_000) => {
    closing = true;
    await restarting;
    const child = handle.child;
    if (!child || !handle.alive()) return;
    child.kill('SIGTERM');
    if (!(await waitExit(child, graceMs))) {
      child.kill('SIGKILL');
      await waitExit(child, 5000);
    }
  };
  handle.restartAfterKill = async () => {
    await handle.kill9();
    return handle.start();
  };
  handle.logFile = log.file;
  return handle;
}

/** The built registry (`env` on top of the bench defaults: admin token, LOG_LEVEL=warn). */
export function registry(env, options) {
  return supervised(
    options.name ?? 'registry',
    async (port, log) => {
      const { child, url } = await startRegistryProcess(env, { port, log, timeoutMs: 60_000 });
      return { child, url };
    },
    options,
  );
}

/** The built executor; `url` is its health endpoint. */
export function executor(env, options) {
  return supervised(
    options.name ?? 'executor',
    async (port, log) => {
      const { child } = await startExecutorProcess(env, { port, log, timeoutMs: 60_000 });
      return { child, url: `http://127.0.0.1:${port}` };
    },
    options,
  );
}

/** The built spice adapter (ngspice) on its own port; ready once /healthz answers. */
export function spiceAdapter(env, options) {
  return supervised(
    'spice',
    async (port, log) => {
      const child = spawn(process.execPath, [serviceEntry('spice')], {
        cwd: REPO_ROOT,
        env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.pipe(log, { end: false });
      child.stderr.pipe(log, { end: false });
      const url = `http://127.0.0.1:${port}`;
      const up = await waitFor(async () => child.exitCode === null && (await fetch(`${url}/healthz`)).ok, 20_000);
      if (!up) {
        child.kill('SIGKILL');
        throw new Error(`spice adapter did not start on port ${port}`);
      }
      return { child, url };
    },
    options,
  );
}

/** Every descendant { pid, name } of `pid` (from /proc), e.g. the ngspice runs of an adapter about to be killed. */
export function descendants(pid) {
  const procs = new Map(); // pid → { parent, name }
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      procs.set(Number(entry), { parent: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]), name });
    } catch {
      /* gone */
    }
  }
  const found = [];
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift();
    for (const [child, { parent, name }] of procs) {
      if (parent === current && !found.some((f) => f.pid === child)) {
        found.push({ pid: child, name });
        queue.push(child);
      }
    }
  }
  return found;
}

/** JSON over HTTP with a per-request time limit; never throws: transport failures come back as status 0. */
export function api(baseUrl) {
  const client = httpClient(baseUrl, 256);
  async function request(method, route, body, { token, timeoutMs = 15_000, headers = {} } = {}) {
    const all = token ? { ...headers, authorization: `Bearer ${token}` } : headers;
    const started = performance.now();
    try {
      const response = await client.request(method, route, body, all, { timeoutMs });
      return { ...response, ms: performance.now() - started };
    } catch (error) {
      return { status: 0, headers: {}, body: null, error: error.message, ms: performance.now() - started };
    }
  }
  return { request, close: () => client.close() };
}

/** Force-promotes skill versions (the drill skills have no examples; run_circuit_sim's need the adapter). */
export async function promote(baseUrl, skills) {
  const client = api(baseUrl);
  try {
    for (const [name, version] of skills) {
      const response = await client.request(
        'POST',
        `/v1/admin/skills/${name}/versions/${version}/promote`,
        { force: true, reason: 'fault drill' },
        { token: ADMIN_TOKEN },
      );
      if (response.status !== 200) throw new Error(`promote ${name}: ${response.status} ${JSON.stringify(response.body)}`);
    }
  } finally {
    client.close();
  }
}

/** Every execution of `skill` (all pages). */
export async function listExecutions(client, skill) {
  const items = [];
  let cursor = null;
  for (let page = 0; page < 1000; page++) {
    const query = `/v1/executions?skill=${skill}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await client.request('GET', query);
    if (response.status !== 200) throw new Error(`list executions: ${response.status} ${JSON.stringify(response.body)}`);
    items.push(...response.body.items);
    cursor = response.body.next_cursor;
    if (!cursor) break;
  }
  return items;
}

/**
 * Polls executions by id until each is terminal or `timeoutMs` passes; returns Map id → last record seen
 * (status may still be QUEUED/RUNNING for those that did not finish).
 */
export async function waitTerminal(client, ids, timeoutMs, stepMs = 200) {
  const last = new Map();
  const deadline = Date.now() + timeoutMs;
  let pending = [...ids];
  while (pending.length > 0) {
    const answers = await Promise.all(pending.map((id) => client.request('GET', `/v1/executions/${id}`, undefined, { timeoutMs: 5000 })));
    answers.forEach((answer, i) => answer.status === 200 && last.set(pending[i], answer.body));
    pending = pending.filter((id) => !TERMINAL.has(last.get(id)?.status));
    if (pending.length === 0 || Date.now() > deadline) break;
    await sleep(stepMs);
  }
  return last;
}

/** "FAILED:WORKER_LOST" style label of an execution's outcome. */
export function outcome(execution) {
  if (!execution) return 'UNKNOWN';
  return execution.error?.code ? `${execution.status}:${execution.error.code}` : execution.status;
}

/** Counts of labels, as "A 3, B 1". */
export function tally(labels) {
  const counts = new Map();
  for (const label of labels) counts.set(label, (counts.get(label) ?? 0) + 1);
  return [...counts].map(([label, n]) => `${label} ${n}`).join(', ') || 'none';
}
