// Helpers of the drill smoke tests (the full drills are drills/*.mjs): a throwaway Postgres cluster
// on a spare port, the built registry as a child process (so a crash shows as an exit, not as a
// failed Jest worker), and requests with a time limit that report how long they took.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../support/executor.js';
import { ADMIN_TOKEN } from '../support/registry.js';
import { REPO_ROOT } from '../support/skill-packages.js';
import { serviceEntry } from '../../scripts/service-entries.mjs';
import { loadExecutorConfig } from '../../apps/executor/src/config/executor-config.js';

const run = promisify(execFile);
const PG_BIN = process.env.DRILL_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** initdb and postgres refuse to run as root: as root, run them as the postgres user. */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

export interface PrivatePostgres {
  port: number;
  url(database: string): string;
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'drill-pg-'));
  if (process.getuid?.() === 0) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout);
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout);
    chownSync(dataDir, uid, gid);
  }
  const port = await freePort();
  const pgCtl = (args: string[]) => {
    const [command, argv] = asPostgres(path.join(PG_BIN, 'pg_ctl'), ['-D', dataDir, ...args]);
    return run(command, argv, { timeout: 90_000 });
  };
  const [command, argv] = asPostgres(path.join(PG_BIN, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  await run(command, argv, { timeout: 120_000 });
  const options = `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1`;
  const cluster: PrivatePostgres = {
    port,
    url: (database) => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    start: async () => void (await pgCtl(['-l', path.join(dataDir, 'server.log'), '-o', options, '-w', '-t', '60', 'start'])),
    stop: async (mode = 'fast') => void (await pgCtl(['-m', mode, '-w', '-t', '60', 'stop'])),
    async destroy() {
      await pgCtl(['-m', 'immediate', '-w', '-t', '30', 'stop']).catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}

export interface RegistryProcess {
  child: ChildProcess;
  baseUrl: string;
  output(): string;
  stop(): Promise<void>;
}

/** The built registry (its bundle) as a child process; resolves once /readyz answers 200. */
export async function startRegistryProcess(options: {
  databaseUrl: string;
  skillPaths: string[];
  queuePrefix: string;
  env?: Record<string, string>;
}): Promise<RegistryProcess> {
  const main = serviceEntry('registry');
  if (!existsSync(main)) throw new Error(`${main} is missing: run "npm run build" first`);
  const port = await freePort();
  const child = spawn(process.execPath, [main], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: options.databaseUrl,
      SKILL_PATHS: options.skillPaths.join(':'),
      QUEUE_PREFIX: options.queuePrefix,
      ADMIN_TOKENS: `root=${ADMIN_TOKEN}`,
      HOST: '127.0.0.1',
      PORT: String(port),
      GRPC_PORT: '0',
      LOG_LEVEL: 'warn',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`registry exited during start-up:\n${output}`);
    if ((await timed(baseUrl, 'GET', '/readyz', undefined, 1000)).status === 200) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`registry did not become ready:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    baseUrl,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** One JSON request with a time limit; status 0 when no answer came. */
export async function timed(
  baseUrl: string,
  method: string,
  route: string,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<{ status: number; ms: number; contentType: string; body: any }> {
  const started = performance.now();
  try {
    const response = await fetch(`${baseUrl}${route}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return {
      status: response.status,
      ms: performance.now() - started,
      contentType: response.headers.get('content-type') ?? '',
      body: parsed,
    };
  } catch {
    return { status: 0, ms: performance.now() - started, contentType: '', body: null };
  }
}

/** The executor's timings as shipped, read from its configuration's defaults (test/support/executor.ts shortens them for speed). */
const SHIPPED = loadExecutorConfig({});
export const PRODUCTION_EXECUTOR_TIMINGS = Object.fromEntries(
  (
    [
      'LOCK_DURATION_MS',
      'STALLED_INTERVAL_MS',
      'HEARTBEAT_MS',
      'LOST_AFTER_MS',
      'RECONCILE_INTERVAL_MS',
      'RETRY_BASE_MS',
      'RETRY_MAX_MS',
    ] as const
  ).map((key) => [key, String(SHIPPED[key])]),
);
