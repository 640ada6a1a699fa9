// The shared services of the multi-node drill, each a real process on private loopback ports with
// its files under one temp folder: a Redis Cluster (redis-server in cluster mode, 3 masters + 3
// replicas), PgBouncer in transaction mode in front of the machine's Postgres, and HAProxy with the
// shipped deploy/haproxy.cfg. Nothing here touches the machine's Redis (6379) or restarts its Postgres.
import { execFile, spawn } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort, REPO_ROOT } from '../../bench/support/registry-process.mjs';
import { sleep, waitFor } from '../support/harness.mjs';

const run = promisify(execFile);

/** A child process in the foreground (not daemonised: the drill owns it), with its output in `logFile`. */
function daemon(command, args, { logFile } = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  if (logFile) {
    const append = (chunk) => writeFileSync(logFile, chunk, { flag: 'a' });
    child.stdout.on('data', append);
    child.stderr.on('data', append);
  }
  return child;
}

function exited(child) {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Sends `signal` and waits (bounded) for the exit; SIGKILL when it does not come. */
async function terminate(child, signal = 'SIGTERM', graceMs = 5000) {
  if (!child || exited(child)) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  if ((await Promise.race([gone.then(() => true), sleep(graceMs, false)])) === false) {
    child.kill('SIGKILL');
    await Promise.race([gone, sleep(5000)]);
  }
}

/** redis-cli against one node: resolves with stdout. */
export async function redisCli(port, ...args) {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 });
  return stdout;
}

/** CLUSTER NODES of a node, parsed: [{ id, port, role: 'master' | 'slave', masterId, flags, slots }]. */
async function clusterNodes(port) {
  const text = await redisCli(port, 'cluster', 'nodes');
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, address, flags, masterId, , , , , ...slots] = line.split(' ');
      return {
        id,
        port: Number(address.split('@')[0].split(':')[1]),
        role: flags.includes('master') ? 'master' : 'slave',
        failed: flags.includes('fail'),
        masterId: masterId === '-' ? null : masterId,
        slots,
      };
    });
}

/**
 * A Redis Cluster of `masters` masters with one replica each, on free loopback ports (client and bus port
 * both chosen, `cluster-port`), no persistence. Returns { nodes: [{ port, kill9(), start() }], seeds (host:port
 * list), failover(): fails one master over to its replica (CLUSTER FAILOVER) then kill -9s the old master,
 * resolving with { oldMaster, newMaster, ms }, state(), stop() }.
 */
export async function startRedisCluster(dir, options = {}) {
  const nodes = [];
  try {
    return await createCluster(dir, nodes, options);
  } catch (error) {
    await Promise.all(nodes.map((node) => node.kill9()));
    throw error;
  }
}

async function createCluster(dir, nodes, { masters = 3, nodeTimeoutMs = 2000 }) {
  for (let i = 0; i < masters * 2; i++) {
    const port = await freePort();
    const busPort = await freePort();
    const nodeDir = path.join(dir, `redis-${port}`);
    mkdirSync(nodeDir, { recursive: true });
    const args = [
      '--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-port', String(busPort),
      '--cluster-config-file', path.join(nodeDir, 'nodes.conf'), '--cluster-node-timeout', String(nodeTimeoutMs),
      '--save', '', '--appendonly', 'no', '--dir', nodeDir, '--protected-mode', 'yes',
    ]; // prettier-ignore
    const node = { port, busPort, child: null, logFile: path.join(dir, `redis-${port}.log`) };
    node.start = async () => {
      node.child = daemon('redis-server', args, { logFile: node.logFile });
      const up = await waitFor(async () => (await redisCli(port, 'ping')).includes('PONG'), 10_000);
      if (!up) throw new Error(`redis-server on port ${port} did not start (log: ${node.logFile})`);
    };
    node.kill9 = () => terminate(node.child, 'SIGKILL');
    node.alive = () => node.child !== null && !exited(node.child);
    nodes.push(node);
    await node.start();
  }
  const seeds = nodes.map((n) => `127.0.0.1:${n.port}`);
  await run('redis-cli', ['--cluster', 'create', ...seeds, '--cluster-replicas', '1', '--cluster-yes'], { timeout: 60_000 });
  // Ready once every node says ok and sees every master with its slots and every replica attached.
  const ok = await waitFor(
    async () => {
      for (const node of nodes) {
        if (!(await redisCli(node.port, 'cluster', 'info')).includes('cluster_state:ok')) return false;
        const layout = await clusterNodes(node.port);
        const serving = layout.filter((n) => n.role === 'master' && n.slots.length > 0);
        const replicas = layout.filter((n) => n.role === 'slave' && serving.some((m) => m.id === n.masterId));
        if (serving.length !== masters || replicas.length !== masters) return false;
      }
      return true;
    },
    30_000,
    200,
  );
  if (!ok) throw new Error('the Redis Cluster did not reach cluster_state:ok');

  const cluster = {
    nodes,
    seeds: seeds.join(','),
    /** The node layout as one live node sees it. */
    async state() {
      const live = nodes.find((n) => n.alive());
      return clusterNodes(live.port);
    },
    /**
     * Promotes the replica of one master (CLUSTER FAILOVER, the manual and lossless one), then kill -9s
     * the old master; resolves once the cluster is ok again on every live node.
     */
    async failover() {
      const started = Date.now();
      const layout = await cluster.state();
      const master = layout.find((n) => n.role === 'master' && !n.failed && n.slots.length > 0);
      const replica = layout.find((n) => n.role === 'slave' && n.masterId === master.id && !n.failed);
      await redisCli(replica.port, 'cluster', 'failover');
      const promoted = await waitFor(async () => (await redisCli(replica.port, 'role')).startsWith('master'), 15_000, 100);
      if (!promoted) throw new Error(`replica ${replica.port} was not promoted`);
      await nodes.find((n) => n.port === master.port).kill9();
      // Over once every live node holds the promoted replica as the slots' master and the old one as failed.
      const healthy = await waitFor(
        async () => {
          for (const node of nodes.filter((n) => n.alive())) {
            if (!(await redisCli(node.port, 'cluster', 'info')).includes('cluster_state:ok')) return false;
            const seen = await clusterNodes(node.port);
            const promotedSeen = seen.find((n) => n.port === replica.port);
            const oldSeen = seen.find((n) => n.port === master.port);
            if (promotedSeen?.role !== 'master' || promotedSeen.slots.length === 0 || !oldSeen?.failed) return false;
          }
          return true;
        },
        30_000,
        100,
      );
      return { oldMaster: master.port, newMaster: replica.port, healthy: Boolean(healthy), ms: Date.now() - started };
    },
    async stop() {
      await Promise.all(nodes.map((node) => terminate(node.child, 'SIGKILL')));
    },
  };
  return cluster;
}

/**
 * PgBouncer (Debian's, 1.18) in transaction pooling mode on a free loopback port, in front of `database`
 * on the Postgres at `postgresUrl`; run as the postgres user when the drill runs as root (PgBouncer
 * refuses root). Returns { port, url, restart(), stop() }.
 */
export async function startPgBouncer(dir, { postgresUrl, database, poolSize = 20 }) {
  // Its own folder straight under the temp dir: the postgres user must reach it (the drill's folder is root's, 0700).
  const home = mkdtempSync(path.join(os.tmpdir(), 'drill-pgbouncer-'));
  const server = new URL(postgresUrl);
  const port = await freePort();
  const user = decodeURIComponent(server.username || 'postgres');
  writeFileSync(path.join(home, 'userlist.txt'), `"${user}" ""\n`);
  writeFileSync(
    path.join(home, 'pgbouncer.ini'),
    [
      '[databases]',
      `${database} = host=${server.hostname} port=${server.port || 5432} dbname=${database}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${home}`,
      'auth_type = trust',
      `auth_file = ${path.join(home, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 1000',
      // node-postgres and Prisma's adapter send nothing else PgBouncer would refuse; kept for other clients.
      'ignore_startup_parameters = extra_float_digits,options',
      `pidfile = ${path.join(home, 'pgbouncer.pid')}`,
      'server_login_retry = 1',
      '',
    ].join('\n'),
  );
  if (process.getuid?.() === 0) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout);
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout);
    chownSync(home, uid, gid);
  }
  const logFile = path.join(dir, 'pgbouncer.log');
  const stopped = async () => {
    await terminate(bouncer.child, 'SIGTERM');
    rmSync(home, { recursive: true, force: true });
  };
  const bouncer = {
    port,
    url: `postgresql://${user}@127.0.0.1:${port}/${database}`,
    child: null,
    async start() {
      // PgBouncer refuses to run as root: -u drops to the postgres user (no runuser in between, so signals reach it).
      const user = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
      bouncer.child = daemon('pgbouncer', [...user, path.join(home, 'pgbouncer.ini')], { logFile });
      const up = await waitFor(
        async () => {
          if (exited(bouncer.child)) throw new Error(`pgbouncer exited (log: ${logFile})`);
          const client = new pg.Client({ connectionString: bouncer.url, connectionTimeoutMillis: 2000 });
          try {
            await client.connect();
            return (await client.query('SELECT 1 AS one')).rows[0].one === 1;
          } finally {
            await client.end().catch(() => undefined);
          }
        },
        15_000,
        100,
      );
      if (!up) throw new Error(`pgbouncer did not answer on port ${port} (log: ${logFile})`);
    },
    /** SIGTERM (PgBouncer's immediate shutdown: every client connection is cut), then started again. */
    async restart() {
      const started = Date.now();
      await terminate(bouncer.child, 'SIGTERM');
      const downAt = Date.now();
      await bouncer.start();
      return { downMs: Date.now() - downAt, ms: Date.now() - started };
    },
    stop: stopped,
  };
  await bouncer.start().catch(async (error) => {
    await stopped();
    throw error;
  });
  return bouncer;
}

/**
 * HAProxy (Debian's, 2.6) with the shipped deploy/haproxy.cfg, its addresses from the environment as the
 * file expects them. `registries`: [{ http: 'host:port', grpc: 'host:port' }]. Returns { http, grpc, stats, stop() }.
 */
export async function startHaproxy(dir, { registries }) {
  const [http, grpc, stats] = [await freePort(), await freePort(), await freePort()];
  const env = {
    PATH: process.env.PATH,
    HAPROXY_HTTP_BIND: `127.0.0.1:${http}`,
    HAPROXY_GRPC_BIND: `127.0.0.1:${grpc}`,
    HAPROXY_STATS_BIND: `127.0.0.1:${stats}`,
    HAPROXY_ERRORS: path.join(REPO_ROOT, 'deploy'),
    REGISTRY_1_HTTP: registries[0].http,
    REGISTRY_1_GRPC: registries[0].grpc,
    REGISTRY_2_HTTP: registries[1].http,
    REGISTRY_2_GRPC: registries[1].grpc,
  };
  const config = path.join(REPO_ROOT, 'deploy/haproxy.cfg');
  await run('haproxy', ['-c', '-q', '-f', config], { env, timeout: 10_000 });
  const logFile = path.join(dir, 'haproxy.log');
  const child = spawn('haproxy', ['-db', '-f', config], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk) => writeFileSync(logFile, chunk, { flag: 'a' }));
  child.stderr.on('data', (chunk) => writeFileSync(logFile, chunk, { flag: 'a' }));
  const up = await waitFor(
    async () => {
      if (exited(child)) throw new Error(`haproxy exited (log: ${logFile})`);
      return (await fetch(`http://127.0.0.1:${http}/readyz`)).status === 200;
    },
    20_000,
    100,
  );
  if (!up) throw new Error(`haproxy did not answer on port ${http} (log: ${logFile})`);
  return {
    http: `http://127.0.0.1:${http}`,
    grpc: `127.0.0.1:${grpc}`,
    stats: `http://127.0.0.1:${stats}`,
    stop: () => terminate(child, 'SIGTERM'),
  };
}
