import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { NODE_ARGS } from '../../scripts/node-args.mjs';
import { serviceEntry } from '../../scripts/service-entries.mjs';
import { SANDBOX_MARKER_ROOT } from './executions.js';
import { REPO_ROOT } from './skill-packages.js';

const MAIN = serviceEntry('executor');

export interface RunningExecutor {
  child: ChildProcess;
  port: number;
  output: () => string;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL (crash) and wait for the process to be gone. */
  kill(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Starts the built executor as a separate process (so tests can kill -9 it) and waits until it is ready. */
export async function startExecutor(options: {
  databaseUrl: string;
  queuePrefix: string;
  env?: Record<string, string>;
  /** False: no marker directory is writable in the sandboxes (handlers then reach nothing but their channel). */
  markers?: boolean;
}): Promise<RunningExecutor> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first (npm test does)`);
  const port = await freePort();
  const child = spawn(process.execPath, [...NODE_ARGS.executor, MAIN], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: options.databaseUrl,
      QUEUE_PREFIX: options.queuePrefix,
      EXECUTOR_PORT: String(port),
      LOG_LEVEL: 'warn',
      EXECUTOR_CONCURRENCY: '4',
      LOCK_DURATION_MS: '3000',
      STALLED_INTERVAL_MS: '1000',
      HEARTBEAT_MS: '500',
      RECONCILE_INTERVAL_MS: '1000',
      RETRY_BASE_MS: '100',
      RETRY_MAX_MS: '400',
      CANCEL_GRACE_MS: '500',
      SHUTDOWN_GRACE_SECONDS: '10',
      // The fixture skills count their attempts in marker files: that one directory is writable in their sandboxes.
      ...(options.markers === false ? {} : { SANDBOX_TEST_WRITABLE_DIR: SANDBOX_MARKER_ROOT }),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`executor exited during start-up:\n${output}`);
    if (output.includes('skill executor ready')) break;
    if (Date.now() > deadline) throw new Error(`executor did not become ready:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    port,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
