/* global AbortSignal */
// The multi-node drill's body (drills/scale/main.mjs runs it in full, test/drills/scale.e2e-spec.ts
// shortly): a Redis Cluster, PgBouncer, HAProxy, 2 registries, several executors and the tool adapters,
// all real processes on loopback; catalog changes measured across the replicas; load over REST, gRPC and
// MCP through HAProxy while faults are injected; then the pass criteria and the figures.
import { chmod, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { serviceEntry } from '../../scripts/service-entries.mjs';
import { sleep, waitFor } from '../support/harness.mjs';
import { sharedDatabase } from '../support/services.mjs';
import { DRILL_SKILLS, IDEMPOTENT, ONCE, writeDrillSkills } from '../support/skills.mjs';
import { ADMIN_TOKEN, REPO_ROOT, TERMINAL, api, executor, freePort, listExecutions, registry, waitTerminal } from '../support/stack.mjs';
import { startHaproxy, startPgBouncer, startRedisCluster } from './infrastructure.mjs';
import { startLoad } from './load.mjs';
import { judge } from './verdict.mjs';

/** Every tool adapter: the full drill runs them all beside the executors. */
export const ADAPTERS = ['spice', 'calculix', 'gmsh', 'kicad'];
const PUBLISHED = 'drill_published';

/** The tool adapters (built), each on a free port; resolves once each answers /healthz. */
async function startAdapters(ctx, names) {
  const urls = [];
  for (const name of names) {
    const port = await freePort();
    const child = spawn(process.execPath, [serviceEntry(name)], {
      cwd: REPO_ROOT,
      env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    ctx.defer(() => child.exitCode === null && child.signalCode === null && child.kill('SIGTERM'));
    const up = await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 30_000);
    if (!up) throw new Error(`the ${name} adapter did not start`);
    urls.push(`${name}=http://127.0.0.1:${port}/mcp`);
  }
  return urls.join(',');
}

/** Writes on one replica, then polls the other until `seen(body)`: milliseconds from the write's answer (null: not within 10 s). */
async function propagation(write, otherClient, route, seen) {
  const answer = await write();
  if (answer.status >= 300) throw new Error(`write answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
  const written = performance.now();
  const found = await waitFor(async () => seen((await otherClient.request('GET', route)).body), 10_000, 10);
  return found ? Math.round(performance.now() - written) : null;
}

/** Whether the replica at `url` holds one of `sessionIds` (asked directly: a ping on a session it does not know is 404). */
async function holdsSession(url, sessionIds) {
  for (const sessionId of sessionIds) {
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'probe', method: 'ping' }),
      signal: AbortSignal.timeout(5000),
    }).catch(() => null);
    await response?.body?.cancel().catch(() => undefined);
    if (response?.status === 200) return true;
  }
  return false;
}

async function runs(marker) {
  try {
    return (await readFile(marker, 'utf8')).length;
  } catch {
    return 0;
  }
}

/** The drill skill packed as a new package for the publish measurement. */
async function publishedArchive(root) {
  const { packPackageArchive, readPackageDir } = await import(
    pathToFileURL(path.join(REPO_ROOT, 'dist/libs/package-store/src/index.js')).href
  );
  const dir = path.join(root, 'publish', PUBLISHED);
  await mkdir(dir, { recursive: true });
  const source = path.join(root, 'skills', 'drill', IDEMPOTENT);
  for (const file of ['schema.ts', 'handler.ts', 'handler.spec.ts'])
    await import('node:fs/promises').then((fs) => fs.copyFile(path.join(source, file), path.join(dir, file)));
  const definition = JSON.parse(await readFile(path.join(source, 'definition.json'), 'utf8'));
  await import('node:fs/promises').then((fs) =>
    Promise.all([
      fs.writeFile(path.join(dir, 'definition.json'), JSON.stringify({ ...definition, name: PUBLISHED }, null, 2)),
      fs.writeFile(
        path.join(dir, 'SKILL.md'),
        `---\nname: drill-published\ndescription: Published by the scale drill.\n---\n\n# ${PUBLISHED}\n`,
      ),
    ]),
  );
  return packPackageArchive(await readPackageDir(dir));
}

/**
 * options: { loadSeconds, rate, handlerMs, executors, adapters (names), faults: ['registry', 'executor', 'redis', 'pgbouncer'],
 * settleSeconds, mcpClients, visibilityBoundMs (default 1000) }.
 */
export async function runScaleDrill(ctx, options) {
  const tmp = await ctx.tempDir('scale');
  const skillsRoot = path.join(tmp, 'skills');
  const markers = path.join(tmp, 'markers');
  await writeDrillSkills(skillsRoot);
  await mkdir(markers);
  // Handlers run in bubblewrap as another user: the marker folder is the one writable place they get.
  await chmod(tmp, 0o755);
  await chmod(markers, 0o777);

  // Shared services: a private database on the machine's Postgres behind PgBouncer, a Redis Cluster.
  const db = sharedDatabase();
  ctx.defer(() => db.drop());
  const database = new URL(db.url).pathname.slice(1);
  const { ensureDatabase } = await import(pathToFileURL(path.join(REPO_ROOT, 'dist/libs/database/src/migrator.js')).href);
  await ensureDatabase(db.url);
  const cluster = await startRedisCluster(ctx.logDir);
  ctx.defer(() => cluster.stop());
  ctx.log(`Redis Cluster: 3 masters + 3 replicas on ${cluster.seeds}`);
  const bouncer = await startPgBouncer(ctx.logDir, { postgresUrl: db.url, database });
  ctx.defer(() => bouncer.stop());
  ctx.log(`PgBouncer (transaction pooling) on ${bouncer.port} in front of ${database}`);
  const toolAdapters = options.adapters.length > 0 ? await startAdapters(ctx, options.adapters) : '';
  if (options.adapters.length > 0) ctx.log(`adapters: ${options.adapters.join(', ')}`);

  const shared = {
    DATABASE_URL: bouncer.url,
    DATABASE_DIRECT_URL: db.url,
    REDIS_CLUSTER_NODES: cluster.seeds,
    QUEUE_PREFIX: `{drill-scale-${process.pid}}`,
    SKILL_PATHS: skillsRoot,
    TOOL_ADAPTERS: toolAdapters,
    // HAProxy (option forwardfor) runs on this machine, as in docker-compose.scale.yml: its client addresses are believed.
    TRUST_PROXY: 'loopback',
  };
  // Two replicas started at once, as a rolling deploy would: both discover the same packages.
  const replicas = [];
  for (let i = 1; i <= 2; i++) {
    const grpcPort = await freePort();
    const replica = registry({ ...shared, GRPC_PORT: String(grpcPort) }, { logDir: ctx.logDir, name: `registry-${i}` });
    replica.grpcPort = grpcPort;
    ctx.defer(() => replica.stop());
    replicas.push(replica);
  }
  await Promise.all(replicas.map((replica) => replica.start()));
  const [one, two] = replicas.map((replica) => api(replica.url));
  ctx.defer(() => one.close());
  ctx.defer(() => two.close());
  ctx.log(`registries on ${replicas.map((r) => `${r.url} (gRPC ${r.grpcPort})`).join(', ')}`);

  // Catalog changes on one replica, seen on the other.
  const admin = { token: ADMIN_TOKEN };
  const status = (name) => (body) => body?.status === 'ACTIVE' && body?.name === name;
  const promote = (client, name) => () =>
    client.request('POST', `/v1/admin/skills/${name}/versions/1.0.0/promote`, { force: true, reason: 'scale drill' }, admin);
  const visibility = {
    promotion: await propagation(promote(one, IDEMPOTENT), two, `/v1/skills/${IDEMPOTENT}`, status(IDEMPOTENT)),
    'promotion (other way)': await propagation(promote(two, ONCE), one, `/v1/skills/${ONCE}`, status(ONCE)),
    publish: await propagation(
      async () => {
        const archive = await publishedArchive(tmp);
        const response = await fetch(`${replicas[0].url}/v1/packages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/gzip' },
          body: archive,
        });
        return { status: response.status, body: await response.json() };
      },
      two,
      `/v1/skills/${PUBLISHED}`,
      (body) => body?.name === PUBLISHED,
    ),
  };
  visibility['promotion (published)'] = await propagation(promote(two, PUBLISHED), one, `/v1/skills/${PUBLISHED}`, status(PUBLISHED));
  visibility.deprecation = await propagation(
    () => one.request('POST', `/v1/admin/skills/${PUBLISHED}/deprecate`, { reason: 'scale drill' }, admin),
    two,
    `/v1/skills/${PUBLISHED}`,
    (body) => body?.status === 'DEPRECATED',
  );
  ctx.log(
    `catalog changes seen on the other replica after: ${Object.entries(visibility)
      .map(([k, v]) => `${k} ${v ?? '>10000'} ms`)
      .join(', ')}`,
  );

  const executors = [];
  for (let i = 1; i <= options.executors; i++) {
    const cacheDir = path.join(tmp, `package-cache-${i}`);
    const ex = executor(
      { ...shared, PACKAGE_CACHE_DIR: cacheDir, SANDBOX_TEST_WRITABLE_DIR: markers, EXECUTOR_CONCURRENCY: '4' },
      { logDir: ctx.logDir, name: `executor-${i}` },
    );
    ctx.defer(() => ex.stop());
    executors.push(ex);
  }
  await Promise.all(executors.map((ex) => ex.start()));
  const balancer = await startHaproxy(ctx.logDir, {
    registries: replicas.map((r) => ({ http: `127.0.0.1:${r.port}`, grpc: `127.0.0.1:${r.grpcPort}` })),
  });
  ctx.defer(() => balancer.stop());
  ctx.log(`${options.executors} executors; HAProxy on ${balancer.http} (gRPC ${balancer.grpc})`);

  // Load, with the faults spread over it.
  const load = startLoad({
    http: balancer.http,
    grpcAddress: balancer.grpc,
    markersDir: markers,
    rate: options.rate,
    handlerMs: options.handlerMs,
    mcpClients: options.mcpClients,
  });
  ctx.defer(() => load.stop());
  const loadStart = Date.now();
  ctx.log(
    `load for ${options.loadSeconds} s: REST ${options.rate}/s, gRPC ${Math.max(1, options.rate / 4)}/s, ${options.mcpClients} MCP 2025 session clients + one 2026-07-28 client`,
  );
  const faults = [];
  const gap = (options.loadSeconds * 1000) / (options.faults.length + 1);
  const inject = {
    registry: async () => {
      // The replica holding an MCP session client's session, so that the drill sees that client carry on elsewhere.
      const owners = await Promise.all(replicas.map((replica) => holdsSession(replica.url, load.sessionIds())));
      const victim = replicas[Math.max(0, owners.indexOf(true))];
      const at = Date.now();
      await victim.kill9();
      const restarted = await victim.start();
      return {
        at,
        label: `${victim.name} kill -9${owners.includes(true) ? ' (it held an MCP session)' : ''}, started again (pid ${restarted.pid()})`,
      };
    },
    executor: async () => {
      await executors[1 % executors.length].kill9();
      return `executor-${(1 % executors.length) + 1} kill -9 (not restarted)`;
    },
    redis: async () => {
      const failover = await cluster.failover();
      return `Redis master :${failover.oldMaster} failed over to :${failover.newMaster} (CLUSTER FAILOVER, then kill -9 of the old master; cluster agreed after ${failover.ms} ms)`;
    },
    pgbouncer: async () => {
      const restart = await bouncer.restart();
      return `PgBouncer stopped (SIGTERM) and started again (down ${restart.downMs} ms)`;
    },
  };
  for (const [i, kind] of options.faults.entries()) {
    await sleep(Math.max(0, loadStart + gap * (i + 1) - Date.now()));
    const started = Date.now();
    const injected = await inject[kind]();
    // The moment of the fault itself (a registry kill is preceded by finding the replica to kill).
    const { at, label } = typeof injected === 'string' ? { at: started, label: injected } : injected;
    faults.push({ kind, at, done: Date.now(), label });
    ctx.log(`fault: ${label}`);
  }
  await sleep(Math.max(0, loadStart + options.loadSeconds * 1000 - Date.now()));
  const loadMs = Date.now() - loadStart;
  ctx.log('load stopping');
  await load.stop();
  const { records, accepted } = load.state;

  // Every accepted execution settles; nothing stuck; no non-idempotent handler ran twice.
  const client = api(balancer.http);
  ctx.defer(() => client.close());
  ctx.log(`waiting for ${accepted.size} accepted executions to end (≤ ${options.settleSeconds} s)`);
  const final = await waitTerminal(client, [...accepted.keys()], options.settleSeconds * 1000, 500);
  const notTerminal = [...accepted.keys()].filter((id) => !TERMINAL.has(final.get(id)?.status));
  let twice = 0;
  for (const { skill, marker } of accepted.values()) if (skill === ONCE && (await runs(marker)) > 1) twice++;
  // Executions a client never heard of (its request was cut after the row was written) are the executor's
  // reconciler's to finish (QUEUED for RETRY_MAX_MS + 5 s with no job: enqueued again): given that long.
  const storedNow = async () => [...(await listExecutions(client, IDEMPOTENT)), ...(await listExecutions(client, ONCE))];
  let stored = await storedNow();
  const settleDeadline = Date.now() + options.settleSeconds * 1000;
  while (stored.some((e) => !TERMINAL.has(e.status)) && Date.now() < settleDeadline) {
    await sleep(2000);
    stored = await storedNow();
  }
  const stuck = stored.filter((e) => !TERMINAL.has(e.status));
  for (const e of stuck) console.log(`stuck: ${e.id} ${e.skill} ${e.status} attempts ${e.attempts} created ${e.created_at}`);
  for (const stored of await listExecutions(client, ONCE))
    if (!accepted.has(stored.id) && (await runs(stored.input?.marker ?? '')) > 1) twice++;

  // The catalog is the same on both replicas (each read from its own memory).
  const [catalogOne, catalogTwo] = await Promise.all([
    one.request('GET', '/v1/skills?limit=100'),
    two.request('GET', '/v1/skills?limit=100'),
  ]);
  const sameCatalog = catalogOne.status === 200 && JSON.stringify(catalogOne.body) === JSON.stringify(catalogTwo.body);

  return judge(ctx, {
    records,
    accepted,
    final,
    faults,
    loadStart,
    loadMs,
    notTerminal,
    twice,
    stuck,
    sameCatalog,
    catalogStatuses: [catalogOne.status, catalogTwo.status],
    visibility,
    load,
    processes: [...replicas, ...executors],
    options,
  });
}

export { DRILL_SKILLS };
