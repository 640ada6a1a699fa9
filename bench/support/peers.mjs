// Durable job queues on Postgres that bench/executor measures in the same run: graphile-worker and
// pg-boss. They are not dependencies of the project: on first use they are installed with npm into a
// cache directory under the OS temp dir (pinned versions, reused by later runs) and imported from there.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

/** Connections per peer: the machine's Postgres (max_connections 100) is shared with other processes. */
const MAX_POOL = 16;

export const PEER_VERSIONS = { 'graphile-worker': '0.18.0', 'pg-boss': '12.38.0' };

const CACHE_DIR = path.join(
  process.env.BENCH_PEERS_DIR ?? path.join(os.tmpdir(), 'skill-registry-bench-peers'),
  Object.entries(PEER_VERSIONS)
    .map(([name, version]) => `${name}@${version}`)
    .join('+'),
);

/** Installs the peers into the cache directory unless they are there already; returns that directory. */
export function ensurePeersInstalled() {
  const installed = Object.keys(PEER_VERSIONS).every((name) => existsSync(path.join(CACHE_DIR, 'node_modules', name, 'package.json')));
  if (installed) return CACHE_DIR;
  mkdirSync(CACHE_DIR, { recursive: true });
  writeFileSync(path.join(CACHE_DIR, 'package.json'), JSON.stringify({ name: 'bench-peers', private: true }));
  console.log(`installing ${Object.keys(PEER_VERSIONS).join(' and ')} into ${CACHE_DIR} (first run only) ...`);
  const specs = Object.entries(PEER_VERSIONS).map(([name, version]) => `${name}@${version}`);
  // Both declare Node ≥ 22 in their engines; they run on the project's Node 20 (checked by this bench).
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--engine-strict=false', ...specs], {
    cwd: CACHE_DIR,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return CACHE_DIR;
}

async function importPeer(name) {
  const manifest = path.join(ensurePeersInstalled(), 'node_modules', name, 'package.json');
  const { main } = JSON.parse(await import('node:fs/promises').then((fs) => fs.readFile(manifest, 'utf8')));
  return import(pathToFileURL(path.join(path.dirname(manifest), main)).href);
}

/** A private database for one peer in one run; drop() removes it. */
export async function createPeerDatabase(serverUrl, name) {
  const url = new URL(serverUrl);
  const database = `skill_registry_bench_${name}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    /** Without FORCE while the peer's pools still close (a forced drop would end them with an error nobody listens to). */
    async drop() {
      const client = new pg.Client({ connectionString: new URL('/postgres', serverUrl).toString() });
      await client.connect();
      try {
        for (let attempt = 0; ; attempt++) {
          try {
            await client.query(`DROP DATABASE IF EXISTS ${database}${attempt >= 50 ? ' WITH (FORCE)' : ''}`);
            return;
          } catch (error) {
            if (error.code !== '55006' || attempt >= 50) throw error; // 55006: still in use
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * graphile-worker with its documented throughput settings (local queue, batched completions). A job is
 * done when its `job:complete` event fires: the handler ran; its completion row is written in the next batch.
 * Returns { run(task), close() } where run(payload) adds one job (a durable INSERT) and resolves when it is done.
 */
export async function startGraphileWorker(databaseUrl, concurrency) {
  const { run, makeWorkerUtils } = await importPeer('graphile-worker');
  const waiting = new Map();
  // Ids whose job finished before addJob's answer was read (the worker lives in this process too).
  const early = new Set();
  const runner = await run({
    connectionString: databaseUrl,
    concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList: { noop: async () => undefined },
    logger: silentGraphileLogger(await importPeer('graphile-worker')),
    preset: {
      worker: {
        maxPoolSize: Math.min(concurrency + 4, MAX_POOL),
        localQueue: { size: concurrency + 1 },
        completeJobBatchDelay: 0,
        failJobBatchDelay: 0,
      },
    },
  });
  runner.events.on('job:complete', ({ job }) => {
    const done = waiting.get(String(job.id));
    if (!done) return void early.add(String(job.id));
    waiting.delete(String(job.id));
    done();
  });
  const utils = await makeWorkerUtils({ connectionString: databaseUrl });
  return {
    async run(payload) {
      let resolveDone;
      const done = new Promise((resolve) => (resolveDone = resolve));
      const job = await utils.addJob('noop', payload);
      if (early.delete(String(job.id))) return;
      waiting.set(String(job.id), resolveDone);
      await done;
    },
    async close() {
      await Promise.allSettled([runner.stop(), utils.release()]);
    },
  };
}

function silentGraphileLogger({ Logger }) {
  return new Logger(() => () => undefined);
}

/**
 * pg-boss with LISTEN/NOTIFY wake-ups and `concurrency` local workers. A job is done when its handler
 * returned; pg-boss completes it (a durable UPDATE) before that worker fetches again.
 */
export async function startPgBoss(databaseUrl, concurrency) {
  const { PgBoss } = await importPeer('pg-boss');
  const boss = new PgBoss({
    connectionString: databaseUrl,
    max: Math.min(concurrency + 4, MAX_POOL),
    useListenNotify: true,
    supervise: false,
    schedule: false,
  });
  boss.on('error', () => undefined);
  boss.on('warning', () => undefined);
  await boss.start();
  const queue = 'noop';
  await boss.createQueue(queue, { notify: true });
  const waiting = new Map();
  await boss.work(
    queue,
    { localConcurrency: concurrency, batchSize: 1, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5 },
    async (jobs) => {
      for (const job of jobs) {
        const done = waiting.get(job.data.token);
        if (done) {
          waiting.delete(job.data.token);
          done();
        }
      }
    },
  );
  let nextToken = 0;
  return {
    async run(payload) {
      const token = `${process.pid}-${nextToken++}`;
      const done = new Promise((resolve) => waiting.set(token, resolve));
      await boss.send(queue, { ...payload, token });
      await done;
    },
    async close() {
      await boss.stop({ graceful: true, timeout: 5000, wait: true }).catch(() => undefined);
    },
  };
}
