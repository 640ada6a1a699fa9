// Starts the built registry as a child process and waits until it is ready.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { NODE_ARGS } from '../../scripts/node-args.mjs';
import { serviceEntry } from '../../scripts/service-entries.mjs';

/** The Node options a bench starts `service` with: as npm start does, plus BENCH_NODE_ARGS (e.g. --cpu-prof). */
export function benchNodeArgs(service) {
  return [...NODE_ARGS[service], ...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [])];
}

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ADMIN_TOKEN = 'bench-admin-token';

export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export function benchDatabaseUrl() {
  const server = process.env.BENCH_DATABASE_SERVER_URL ?? 'postgresql://postgres@127.0.0.1:5432';
  const url = new URL(server);
  url.pathname = `/skill_registry_bench_${randomBytes(4).toString('hex')}`;
  return url.toString();
}

export async function dropDatabase(databaseUrl) {
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await client.end();
}

/**
 * Spawns the registry; resolves with { url, child, startupMs } once /readyz answers 200.
 * Options (all optional): `port` (default: a free one), `log` (a writable stream that gets the
 * process's stdout and stderr instead of this terminal), `timeoutMs` (give up and kill it when it is
 * not ready in time; default: wait as long as it runs).
 */
export async function startRegistryProcess(env, options = {}) {
  const port = options.port ?? (await freePort());
  // A gRPC port of its own too: the default (50051) may be taken by another registry on this machine.
  const grpcPort = env.GRPC_PORT ?? String(await freePort());
  const started = performance.now();
  const nodeArgs = benchNodeArgs('registry');
  const child = spawn(process.execPath, [...nodeArgs, serviceEntry('registry')], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      ADMIN_TOKENS: `bench=${ADMIN_TOKEN}`,
      GRPC_PORT: grpcPort,
      ...env,
    },
    stdio: options.log ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'],
  });
  if (options.log) {
    child.stdout.pipe(options.log, { end: false });
    child.stderr.pipe(options.log, { end: false });
  }
  const url = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + (options.timeoutMs ?? Infinity);
  let exited = null;
  // A signal leaves code null: report the signal then, so a killed start-up is noticed too.
  child.on('exit', (code, signal) => (exited = code ?? signal));
  for (;;) {
    if (exited !== null) throw new Error(`registry exited with ${exited} during start-up`);
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`registry not ready within ${options.timeoutMs} ms`);
    }
    try {
      const response = await fetch(`${url}/readyz`);
      if (response.status === 200) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url, child, startupMs: performance.now() - started };
}

export async function stopProcess(child) {
  if (child.exitCode !== null) return;
  const done = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await done;
}
