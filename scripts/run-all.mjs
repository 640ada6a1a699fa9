// Runs the whole system as plain processes: registry, executor and the tool adapters that are built, all
// started at once. Output is prefixed per process; once every one answers its health or readiness
// endpoint it prints how long that took. Ctrl-C (or SIGTERM) stops them all gracefully.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_ARGS } from './node-args.mjs';
import { serviceEntry } from './service-entries.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const ADAPTERS = [
  { name: 'spice', port: 7101 },
  { name: 'calculix', port: 7102 },
  { name: 'gmsh', port: 7103 },
  { name: 'kicad', port: 7104 },
];
// `<NAME>_PORT` moves an adapter; TOOL_ADAPTERS then points at the port it really listens on.
const adapters = ADAPTERS.filter((adapter) => existsSync(serviceEntry(adapter.name))).map((adapter) => ({
  ...adapter,
  port: Number(process.env[`${adapter.name.toUpperCase()}_PORT`] ?? adapter.port),
}));
const toolAdapters =
  process.env.TOOL_ADAPTERS ?? adapters.map((adapter) => `${adapter.name}=http://127.0.0.1:${adapter.port}/mcp`).join(',');

// Where each process says it is ready (the same defaults as their configurations; HOST is shared).
const host = process.env.HOST ?? '';
const probeHost = (fallback) => (host === '' ? fallback : host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host);
const urlHost = (name) => (name.includes(':') ? `[${name}]` : name);
const registryPort = Number(process.env.PORT ?? 3000);
const executorPort = Number(process.env.EXECUTOR_PORT ?? 3100);

// The registry first: it has the most to do before it is ready (catalog, discovery, gRPC).
const processes = [
  {
    name: 'registry',
    entry: serviceEntry('registry'),
    nodeArgs: NODE_ARGS.registry,
    env: { TOOL_ADAPTERS: toolAdapters },
    ready: `http://${urlHost(probeHost('127.0.0.1'))}:${registryPort}/readyz`,
    port: registryPort,
  },
  {
    name: 'executor',
    entry: serviceEntry('executor'),
    nodeArgs: NODE_ARGS.executor,
    env: { TOOL_ADAPTERS: toolAdapters },
    ready: `http://${urlHost(probeHost('127.0.0.1'))}:${executorPort}/readyz`,
    port: executorPort,
  },
  ...adapters.map((adapter) => ({
    name: adapter.name,
    entry: serviceEntry(adapter.name),
    env: { PORT: String(adapter.port) },
    ready: `http://${urlHost(probeHost('127.0.0.1'))}:${adapter.port}/healthz`,
    port: adapter.port,
  })),
];

const children = [];
let stopping = false;

function stopAll(code) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 35_000).unref();
  Promise.all(children.map((child) => (child.exitCode === null ? new Promise((resolve) => child.on('exit', resolve)) : null))).then(() =>
    process.exit(code),
  );
}

for (const spec of processes) {
  const child = spawn(process.execPath, [...(spec.nodeArgs ?? []), spec.entry], {
    cwd: root,
    env: { ...process.env, ...spec.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = `[${spec.name}]`.padEnd(11);
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = '';
    stream.on('data', (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) process.stdout.write(`${prefix} ${line}\n`);
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${prefix} exited (${signal ?? code}); stopping everything`);
      stopAll(1);
    }
  });
  children.push(child);
}

process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

/** 200 from `url` (node:http: cheaper to load than fetch while everything boots). */
function answers(url) {
  return new Promise((resolve) => {
    const request = http.get(url, { timeout: 1000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}

// Ready: every process answers (the registry's /readyz only once its catalog is loaded and discovered).
// Not knowable when a port is 0 (picked at random).
if (processes.every((spec) => spec.port > 0)) {
  const pending = new Set(processes);
  const poll = async () => {
    if (stopping) return;
    await Promise.all([...pending].map(async (spec) => (await answers(spec.ready)) && pending.delete(spec)));
    if (pending.size > 0) return void setTimeout(poll, 100);
    const sinceSpawn = `${process.uptime().toFixed(1)} s after they were started`;
    const startedAt = Number(process.env.START_SH_STARTED_AT); // set by scripts/start.sh (seconds since the epoch)
    const sinceStart = startedAt > 0 ? `${(Date.now() / 1000 - startedAt).toFixed(1)} s after npm start began, ` : '';
    console.log(`[run-all]   ready: ${processes.map((spec) => spec.name).join(', ')} answer, ${sinceStart}${sinceSpawn}`);
  };
  setTimeout(poll, 100);
}
