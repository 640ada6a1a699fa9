// bench/mcp: MCP tool exposure at catalog scale (issue 26 §1). With 1,000 ACTIVE skills, the bytes of the first
// tools/list in mode `all` (today's behaviour: every tool with its schemas, 200 a page) and in mode `progressive`
// (discovery and loading tools only; target ≤ 8 KB), and the search → load → call round trip of progressive mode
// against a direct call in mode `all` (the baseline), measured in one run on one database.
// Usage: npm run bench:mcp-exposure   (env: BENCH_MCP_SKILLS (1000), BENCH_MCP_ROUNDS (20))
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { generateDocuments } from '../search/generate-documents.mjs';
import { generateSkills, skillName } from '../support/generate-skills.mjs';
import { startExecutorProcess } from '../support/executor-process.mjs';
import { deleteRedisKeys } from '../support/redis-cleanup.mjs';
import { ADMIN_TOKEN, benchDatabaseUrl, dropDatabase, startRegistryProcess, stopProcess } from '../support/registry-process.mjs';

const SKILLS = Number(process.env.BENCH_MCP_SKILLS ?? 1000);
const ROUNDS = Number(process.env.BENCH_MCP_ROUNDS ?? 20);
/** Packages discovered, compiled and runnable; the rest are copies of one of them stored straight in Postgres. */
const REAL = 20;
const TARGET_BYTES = 8 * 1024;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) };
};
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

async function admin(url, method, route, body) {
  const response = await fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Stores `count` ACTIVE copies of a discovered version under new names (no packages to compile: the catalog reads rows). */
async function seed(databaseUrl, templateName, count, missingRoot) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: columns } = await client.query(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'skill_versions' AND table_schema = current_schema()`,
    );
    const own = new Set(['id', 'skill_id', 'domain', 'agent', 'description', 'tags', 'package_path', 'status', 'status_reason']);
    const copied = columns.map((row) => row.column_name).filter((column) => !own.has(column));
    const list = copied.map((column) => `"${column}"`).join(', ');
    const documents = generateDocuments(count, 7);
    for (const document of documents) {
      await client.query(
        `WITH skill AS (INSERT INTO skills (id, name, updated_at) VALUES (gen_random_uuid(), $1, now()) RETURNING id)
         INSERT INTO skill_versions (id, skill_id, domain, agent, description, tags, package_path, status, status_reason, ${list})
         SELECT gen_random_uuid(), skill.id, $2, $3, $4, $5::text[], $6, 'ACTIVE', 'seeded by bench/mcp', ${copied.map((c) => `v."${c}"`).join(', ')}
           FROM skill, skill_versions v JOIN skills s ON s.id = v.skill_id WHERE s.name = $7`,
        [
          document.name,
          document.domain,
          document.agent,
          document.description,
          document.tags,
          path.join(missingRoot, document.domain, document.name),
          templateName,
        ],
      );
    }
  } finally {
    await client.end();
  }
}

/** The JSON-RPC answer of tools/list (first page) on a fresh 2025-era session, as bytes on the wire, and every page's. */
async function toolsListBytes(url) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${ADMIN_TOKEN}`,
  };
  const post = async (body, session) => {
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...headers, ...(session ? { 'mcp-session-id': session } : {}) },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const data = text.startsWith('{')
      ? text
      : text
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trim())
          .at(-1);
    return { session: response.headers.get('mcp-session-id'), data };
  };
  const init = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench-mcp', version: '1.0.0' } },
  });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, init.session);
  const pages = [];
  let cursor;
  do {
    const { data } = await post(
      { jsonrpc: '2.0', id: pages.length + 1, method: 'tools/list', params: cursor ? { cursor } : {} },
      init.session,
    );
    pages.push(Buffer.byteLength(data));
    const message = JSON.parse(data);
    cursor = message.result.nextCursor;
    if (pages.length === 1) pages.tools = message.result.tools.length;
    pages.total = (pages.total ?? 0) + message.result.tools.length;
  } while (cursor);
  return {
    first: pages[0],
    all: pages.reduce((sum, bytes) => sum + bytes, 0),
    pages: pages.length,
    firstTools: pages.tools,
    tools: pages.total,
  };
}

async function connect(url) {
  const client = new Client({ name: 'bench-mcp', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: { token: async () => ADMIN_TOKEN } }));
  return client;
}

const INPUT = { value_mpa: 10, limit_mpa: 20 };
/** Generated skills whose index is a multiple of 4 need the CalculiX adapter; the others run on their own. */
const RUNNABLE = Array.from({ length: REAL }, (_, i) => i).filter((i) => i % 4 !== 0);
const runnable = (round) => skillName(RUNNABLE[round % RUNNABLE.length]);

async function directCalls(url) {
  const client = await connect(url);
  const times = [];
  try {
    for (let round = 0; round < ROUNDS + 3; round++) {
      const started = performance.now();
      const result = await client.callTool({ name: runnable(round), arguments: INPUT });
      if (result.isError) throw new Error(`call failed: ${JSON.stringify(result.content)}`);
      if (round >= 3) times.push(performance.now() - started);
    }
  } finally {
    await client.close();
  }
  return summary(times);
}

async function progressiveRoundTrips(url) {
  const client = await connect(url);
  const steps = { search: [], load: [], call: [], total: [] };
  try {
    for (let round = 0; round < ROUNDS + 3; round++) {
      const name = runnable(round);
      const started = performance.now();
      const found = await client.callTool({ name: 'search_skills', arguments: { query: name, limit: 5 } });
      const searched = performance.now();
      if (found.structuredContent.items[0]?.name !== name) throw new Error(`search did not find ${name} first`);
      const loaded = await client.callTool({ name: 'load_skill', arguments: { skill_name: name } });
      const listed = (await client.listTools()).tools.some((tool) => tool.name === name);
      const loadedAt = performance.now();
      if (loaded.isError || !listed) throw new Error(`load_skill ${name} failed: ${JSON.stringify(loaded.content)}`);
      const result = await client.callTool({ name, arguments: INPUT });
      const done = performance.now();
      if (result.isError) throw new Error(`call failed: ${JSON.stringify(result.content)}`);
      await client.callTool({ name: 'unload_skill', arguments: { skill_name: name } });
      if (round < 3) continue;
      steps.search.push(searched - started);
      steps.load.push(loadedAt - searched);
      steps.call.push(done - loadedAt);
      steps.total.push(done - started);
    }
  } finally {
    await client.close();
  }
  return Object.fromEntries(Object.entries(steps).map(([step, values]) => [step, summary(values)]));
}

async function main() {
  const root = await mkdtemp(path.join(os.tmpdir(), 'bench-mcp-'));
  const missingRoot = path.join(root, 'seeded-not-on-disk');
  const databaseUrl = benchDatabaseUrl();
  const queuePrefix = `bench-mcp-${process.pid}`;
  const env = { DATABASE_URL: databaseUrl, SKILL_PATHS: `${root}/packages:${missingRoot}`, QUEUE_PREFIX: queuePrefix, LOG_LEVEL: 'error' };
  let registry;
  let executor;
  try {
    await generateSkills(path.join(root, 'packages'), REAL);
    registry = await startRegistryProcess({ ...env, MCP_TOOL_EXPOSURE: 'all' });
    for (let i = 0; i < REAL; i++) {
      await admin(registry.url, 'POST', `/v1/admin/skills/${skillName(i)}/versions/1.0.0/promote`, { force: true, reason: 'bench/mcp' });
    }
    await stopProcess(registry.child);
    await seed(databaseUrl, skillName(0), SKILLS - REAL, missingRoot);
    executor = await startExecutorProcess({ DATABASE_URL: databaseUrl, QUEUE_PREFIX: queuePrefix, LOG_LEVEL: 'error' });

    registry = await startRegistryProcess({ ...env, MCP_TOOL_EXPOSURE: 'all' });
    const all = await toolsListBytes(registry.url);
    const direct = await directCalls(registry.url);
    await stopProcess(registry.child);

    registry = await startRegistryProcess({ ...env, MCP_TOOL_EXPOSURE: 'progressive' });
    const progressive = await toolsListBytes(registry.url);
    const trips = await progressiveRoundTrips(registry.url);
    await stopProcess(registry.child);
    registry = undefined;

    const ms = (value) => `${value.toFixed(1)} ms`;
    console.log(
      `bench/mcp on ${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} cores), ${SKILLS} ACTIVE skills (${RUNNABLE.length} called), ${ROUNDS} rounds\n`,
    );
    console.log('first tools/list of a session (bytes of the JSON-RPC answer)');
    console.log(
      `  mode all (baseline)   ${kb(all.first).padStart(10)}  ${all.firstTools} tools; all ${all.pages} pages ${kb(all.all)} for ${all.tools} tools`,
    );
    console.log(
      `  mode progressive      ${kb(progressive.first).padStart(10)}  ${progressive.firstTools} tools (discovery + loading; no stubs above 50 skills)`,
    );
    console.log(
      `  ratio progressive/all first page ${(progressive.first / all.first).toFixed(4)}, / all pages ${(progressive.first / all.all).toFixed(5)}`,
    );
    console.log(`  target ≤ ${kb(TARGET_BYTES)}: ${progressive.first <= TARGET_BYTES ? 'met' : 'MISSED'}\n`);
    console.log('round trips (p50 / p95)');
    console.log(`  mode all: direct tools/call (baseline)        ${ms(direct.p50)} / ${ms(direct.p95)}`);
    console.log(`  progressive: search_skills                     ${ms(trips.search.p50)} / ${ms(trips.search.p95)}`);
    console.log(`  progressive: load_skill + tools/list           ${ms(trips.load.p50)} / ${ms(trips.load.p95)}`);
    console.log(`  progressive: tools/call                        ${ms(trips.call.p50)} / ${ms(trips.call.p95)}`);
    console.log(`  progressive: search → load → call              ${ms(trips.total.p50)} / ${ms(trips.total.p95)}`);
    console.log(`  ratio search→load→call / direct call (p50)     ${(trips.total.p50 / direct.p50).toFixed(2)}`);
  } finally {
    if (registry) await stopProcess(registry.child).catch(() => undefined);
    if (executor) await stopProcess(executor.child).catch(() => undefined);
    await dropDatabase(databaseUrl).catch(() => undefined);
    await deleteRedisKeys(REDIS_URL, queuePrefix).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  }
}

await main();
