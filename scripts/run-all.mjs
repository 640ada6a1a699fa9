// Runs the whole system as plain processes: registry, executor and the tool adapters that are built.
// Output is prefixed per process; Ctrl-C (or SIGTERM) stops them all gracefully.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (relative) => path.join(root, 'dist', relative);

const ADAPTERS = [
  { name: 'spice', port: 7101 },
  { name: 'calculix', port: 7102 },
  { name: 'gmsh', port: 7103 },
  { name: 'kicad', port: 7104 },
];
// `<NAME>_PORT` moves an adapter; TOOL_ADAPTERS then points at the port it really listens on.
const adapters = ADAPTERS.filter((adapter) => existsSync(dist(`apps/adapters/${adapter.name}/src/main.js`))).map((adapter) => ({
  ...adapter,
  port: Number(process.env[`${adapter.name.toUpperCase()}_PORT`] ?? adapter.port),
}));
const toolAdapters =
  process.env.TOOL_ADAPTERS ?? adapters.map((adapter) => `${adapter.name}=http://127.0.0.1:${adapter.port}/mcp`).join(',');

const processes = [
  ...adapters.map((adapter) => ({
    name: adapter.name,
    entry: dist(`apps/adapters/${adapter.name}/src/main.js`),
    env: { PORT: String(adapter.port) },
  })),
  { name: 'registry', entry: dist('apps/registry/src/main.js'), env: { TOOL_ADAPTERS: toolAdapters } },
  { name: 'executor', entry: dist('apps/executor/src/main.js'), env: { TOOL_ADAPTERS: toolAdapters } },
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
  const child = spawn(process.execPath, [spec.entry], {
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
