// Dependencies a drill may take down: a throwaway Postgres cluster and a private redis-server, each
// on a spare port. The machine's shared Postgres (5432) and Redis (6379) are never stopped: drills
// that only need them get a database of their own and a unique key prefix, removed at the end.
import { execFile, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { benchDatabaseUrl, dropDatabase, freePort } from '../../bench/support/registry-process.mjs';
import { deleteRedisKeys } from '../../bench/support/redis-cleanup.mjs';
import { sleep, waitFor } from './harness.mjs';

const run = promisify(execFile);
const PG_BIN = process.env.DRILL_PG_BIN ?? '/usr/lib/postgresql/15/bin';
export const SHARED_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** initdb and the server refuse to run as root: run them as the postgres user then. */
function asPostgres(command, args) {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

async function pgCtl(dataDir, args, timeoutMs = 90_000) {
  const [command, argv] = asPostgres(path.join(PG_BIN, 'pg_ctl'), ['-D', dataDir, ...args]);
  return run(command, argv, { timeout: timeoutMs });
}

/**
 * A throwaway cluster (trust auth) on a spare port, its socket and log in its own directory under
 * the temp dir. Returns { port, url(database), restart(mode), stop(), start(), destroy() }.
 */
export async function startPrivatePostgres() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'drill-pg-'));
  if (process.getuid?.() === 0)
    chownSync(dataDir, Number((await run('id', ['-u', 'postgres'])).stdout), Number((await run('id', ['-g', 'postgres'])).stdout));
  const port = await freePort();
  const [command, argv] = asPostgres(path.join(PG_BIN, 'initdb'), [
    '-D',
    dataDir,
    '-A',
    'trust',
    '-U',
    'postgres',
    '--no-sync',
    '-E',
    'UTF8',
  ]);
  await run(command, argv, { timeout: 120_000 });
  const serverOptions = `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  const logFile = path.join(dataDir, 'server.log');
  let running = false;
  const cluster = {
    port,
    dataDir,
    logFile,
    url: (database) => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    async start() {
      await pgCtl(dataDir, ['-l', logFile, '-o', serverOptions, '-w', '-t', '60', 'start']);
      running = true;
    },
    /** `pg_ctl restart -m <mode>`; resolves once the server accepts connections again. */
    async restart(mode = 'fast') {
      await pgCtl(dataDir, ['-l', logFile, '-o', serverOptions, '-m', mode, '-w', '-t', '60', 'restart']);
      running = true;
    },
    async stop(mode = 'fast') {
      if (!running) return;
      await pgCtl(dataDir, ['-m', mode, '-w', '-t', '60', 'stop']);
      running = false;
    },
    async destroy() {
      // The server is the one whose pid is in this data dir's postmaster.pid: pg_ctl stops exactly it.
      await pgCtl(dataDir, ['-m', 'immediate', '-w', '-t', '30', 'stop']).catch(() => undefined);
      running = false;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}

/** A private redis-server without persistence; stop() kills it (SIGTERM or SIGKILL), start() brings it back on the same port. */
export async function startPrivateRedis() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'drill-redis-'));
  const port = await freePort();
  let child = null;
  const redis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
        stdio: 'ignore',
      });
      const up = await waitFor(async () => {
        const { stdout } = await run('redis-cli', ['-p', String(port), 'ping'], { timeout: 2000 });
        return stdout.includes('PONG');
      }, 10_000);
      if (!up) throw new Error(`redis-server on port ${port} did not start`);
    },
    async stop(signal = 'SIGTERM') {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await Promise.race([exited, sleep(5000)]);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
    async destroy() {
      await redis.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await redis.start();
  return redis;
}

/** A database of the drill's own on the shared Postgres (created by the registry at start, dropped here). */
export function sharedDatabase() {
  const url = benchDatabaseUrl().replace('skill_registry_bench_', 'skill_registry_drill_');
  return { url, drop: () => dropDatabase(url) };
}

/** A unique queue prefix on the shared Redis and the cleanup of its keys. */
export function sharedQueuePrefix(label) {
  const prefix = `drill-${label}-${process.pid}-${Date.now()}`;
  return { prefix, cleanup: () => deleteRedisKeys(SHARED_REDIS_URL, prefix) };
}
