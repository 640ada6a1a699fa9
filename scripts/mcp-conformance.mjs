// Runs the official MCP conformance suite (@modelcontextprotocol/conformance) server scenarios against
// /mcp of a registry booted for the run, and prints one row per scenario.
//
//   node scripts/mcp-conformance.mjs [--no-build] [--scenario NAME]...
//
// The suite needs Node >= 22; the project stays on Node 20: a Node 22 binary (the npm package
// node-linux-<arch>@22) and the suite are installed into CONFORMANCE_TOOLS_DIR (default
// <tmpdir>/skill-registry-mcp-conformance) on first use. The registry and an executor run from dist/
// (built first unless --no-build) on a database and a Redis key prefix of their own, both removed at
// the end. The catalog (./skills) is force-promoted so its skills are tools, prompts and resources,
// and so is test_tool_with_logging (test/fixtures/execution-skills), the one tool of the suite's
// scenarios that a skill can be. Exit code 0 when every failing scenario is explained (it needs the
// suite's own fixtures, or a capability the registry does not declare), 1 otherwise.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { NODE_ARGS } from './node-args.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SUITE = '@modelcontextprotocol/conformance';
const SUITE_VERSION = process.env.CONFORMANCE_VERSION ?? '0.1.16';
const TOOLS_DIR = process.env.CONFORMANCE_TOOLS_DIR ?? path.join(os.tmpdir(), 'skill-registry-mcp-conformance');
const DATABASE_SERVER_URL = process.env.CONFORMANCE_DATABASE_SERVER_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The fixture skill named after the suite's tools-call-with-logging tool. */
const SUITE_NAMED_SKILLS = ['test_tool_with_logging'];

const args = process.argv.slice(2);
const build = !args.includes('--no-build');
const only = args.flatMap((arg, index) => (arg === '--scenario' && args[index + 1] ? [args[index + 1]] : []));

const children = [];
let cleanup = async () => undefined;

main()
  .then((code) => finish(code))
  .catch(async (error) => {
    console.error(`mcp-conformance: ${error instanceof Error ? error.message : error}`);
    await finish(2);
  });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void finish(130));

async function main() {
  if (build) run('npm', ['run', '--silent', 'build'], { cwd: root });
  const node22 = ensureNode22();
  const cli = ensureSuite();
  const scenarios = only.length > 0 ? only : listScenarios(node22, cli);

  const runId = `t${Math.floor(Date.now() / 1000)}_${randomBytes(3).toString('hex')}`;
  const outDir = path.join(TOOLS_DIR, 'runs', runId);
  await mkdir(outDir, { recursive: true });
  const database = `skill_registry_conformance_${runId}`;
  const databaseUrl = Object.assign(new URL(DATABASE_SERVER_URL), { pathname: `/${database}` }).toString();
  const queuePrefix = `mcp-conformance-${runId}`;
  const adminToken = `conformance-${randomBytes(12).toString('hex')}`;
  cleanup = () => removeRunData(database, queuePrefix);

  const [port, executorPort] = [await freePort(), await freePort()];
  const baseUrl = `http://127.0.0.1:${port}`;
  start('registry', 'dist/apps/registry/src/main.js', outDir, {
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    QUEUE_PREFIX: queuePrefix,
    HOST: '127.0.0.1',
    PORT: String(port),
    GRPC_PORT: '0',
    SKILL_PATHS: ['skills', 'test/fixtures/execution-skills'].map((dir) => path.join(root, dir)).join(':'),
    ADMIN_TOKENS: `conformance=${adminToken}`,
    LOG_LEVEL: 'warn',
  });
  start('executor', 'dist/apps/executor/src/main.js', outDir, {
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    QUEUE_PREFIX: queuePrefix,
    HOST: '127.0.0.1',
    EXECUTOR_PORT: String(executorPort),
    LOG_LEVEL: 'warn',
  });
  await ready(`${baseUrl}/readyz`, 'registry', outDir);
  await ready(`http://127.0.0.1:${executorPort}/readyz`, 'executor', outDir);
  await promoteAll(baseUrl, adminToken);
  const capabilities = await serverCapabilities(`${baseUrl}/mcp`);

  const rows = [];
  for (const scenario of scenarios) rows.push(await runScenario(node22, cli, scenario, `${baseUrl}/mcp`, outDir, capabilities));

  const header = [
    `MCP conformance: ${SUITE}@${SUITE_VERSION}, ${new Date().toISOString().slice(0, 10)}, suite on Node ${nodeVersion(node22)}`,
    `registry ${gitDescribe()}; capabilities ${JSON.stringify(capabilities)}`,
  ];
  const table = markdownTable(rows);
  console.log(`\n${header.join('\n')}\n\n${table}\n`);
  await writeFile(path.join(outDir, 'results.md'), `${header.join('\n')}\n\n${table}\n`);
  await writeFile(path.join(outDir, 'results.json'), JSON.stringify({ suite: SUITE_VERSION, capabilities, rows }, null, 2));
  const unexplained = rows.filter((row) => row.outcome === 'FAIL' && !row.explained);
  const passed = rows.filter((row) => row.outcome === 'PASS').length;
  console.log(`${passed} of ${rows.length} scenarios pass; ${unexplained.length} unexplained failures. Details: ${outDir}`);
  return unexplained.length === 0 ? 0 : 1;
}

function run(command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, { stdio: 'inherit', ...options });
  if (result.status !== 0) throw new Error(`${command} ${commandArgs.join(' ')} failed (${result.status ?? result.signal})`);
  return result;
}

/** This Node when it is 22 or newer; else a Node 22 binary from npm, installed once into TOOLS_DIR. */
function ensureNode22() {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  if (process.platform !== 'linux' || !['x64', 'arm64'].includes(process.arch)) {
    throw new Error(
      `the conformance suite needs Node >= 22: install it and run this script with it (this is ${process.platform}-${process.arch})`,
    );
  }
  const prefix = path.join(TOOLS_DIR, 'node22');
  const binary = path.join(prefix, 'node_modules', `node-linux-${process.arch}`, 'bin', 'node');
  if (!existsSync(binary)) {
    console.log(`installing node-linux-${process.arch}@22 into ${prefix} (for the suite only)`);
    run('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', `node-linux-${process.arch}@22`]);
  }
  return binary;
}

function ensureSuite() {
  const prefix = path.join(TOOLS_DIR, `conformance-${SUITE_VERSION}`);
  const cli = path.join(prefix, 'node_modules', SUITE, 'dist', 'index.js');
  if (!existsSync(cli)) {
    console.log(`installing ${SUITE}@${SUITE_VERSION} into ${prefix}`);
    run('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', `${SUITE}@${SUITE_VERSION}`]);
  }
  return cli;
}

function nodeVersion(node) {
  return spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

function gitDescribe() {
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim();
  const dirty = spawnSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' }).stdout.trim() !== '';
  return `${commit || 'unknown commit'}${dirty ? ' (with uncommitted changes)' : ''}`;
}

/** Every server scenario the suite lists (its active ones and those it marks for a later spec). */
function listScenarios(node22, cli) {
  const listed = spawnSync(node22, [cli, 'list', '--server'], { encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`conformance list failed: ${listed.stderr}`);
  return [...listed.stdout.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]);
}

function start(name, entry, outDir, env) {
  const nodeArgs = NODE_ARGS[name];
  const log = createWriteStream(path.join(outDir, `${name}.log`));
  const inherited = { ...process.env };
  for (const key of [
    'AGENT_TOKENS',
    'PUBLISHER_TOKENS',
    'TOOL_ADAPTERS',
    'TOOLS_DISABLED',
    'METRICS_TOKEN',
    'ALLOWED_HOSTS',
    'SKILL_WATCH',
  ]) {
    delete inherited[key];
  }
  const child = spawn(process.execPath, [...(nodeArgs ?? []), path.join(root, entry)], {
    cwd: root,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  child.on('exit', (code, signal) => {
    if (!child.stopping) console.error(`${name} exited (${signal ?? code}); its output is in ${path.join(outDir, `${name}.log`)}`);
  });
  children.push(child);
}

async function ready(url, name, outDir) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const status = await fetch(url).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    if (children.some((child) => child.exitCode !== null)) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${name} did not become ready; see ${path.join(outDir, `${name}.log`)}`);
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Force-promotes the catalog and the suite-named fixture skills (the catalog's examples need the tool adapters). */
async function promoteAll(baseUrl, adminToken) {
  let cursor = '';
  do {
    const page = await (await fetch(`${baseUrl}/v1/skills?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).json();
    for (const skill of page.items) {
      if (skill.status !== 'REGISTERED' || (skill.domain === 'testing' && !SUITE_NAMED_SKILLS.includes(skill.name))) continue;
      const response = await fetch(`${baseUrl}/v1/admin/skills/${skill.name}/versions/${skill.version}/promote`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ force: true, reason: 'MCP conformance run' }),
      });
      if (response.status !== 200) throw new Error(`could not promote ${skill.name}: ${response.status} ${await response.text()}`);
    }
    cursor = page.next_cursor ?? '';
  } while (cursor);
}

/** The capabilities /mcp declares in its initialize result (a 2025-11-25 session). */
async function serverCapabilities(url) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mcp-conformance-script', version: '1.0.0' } },
    }),
  });
  const text = await response.text();
  const json = text.trimStart().startsWith('{') ? text : (text.split('\n').find((line) => line.startsWith('data: ')) ?? '').slice(6);
  const session = response.headers.get('mcp-session-id');
  if (session) await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } });
  return JSON.parse(json).result.capabilities;
}

/** The server capability a scenario exercises; transport and core scenarios need none. */
function capabilityOf(scenario) {
  if (/^(server-initialize|ping)$/.test(scenario)) return 'core';
  if (/^(server-sse-|dns-rebinding)/.test(scenario)) return 'transport';
  if (scenario.startsWith('logging-')) return 'logging';
  if (scenario.startsWith('completion-')) return 'completions';
  if (/^resources-(un)?subscribe$/.test(scenario)) return 'resources.subscribe';
  if (scenario.startsWith('resources-')) return 'resources';
  if (scenario.startsWith('prompts-')) return 'prompts';
  return 'tools'; // tools-*, json-schema-*, elicitation-* (they call tools of the suite's reference server)
}

function declared(capability, capabilities) {
  if (capability === 'core' || capability === 'transport') return true;
  const [name, feature] = capability.split('.');
  return feature ? capabilities[name]?.[feature] === true : capabilities[name] !== undefined;
}

/** What a failure needs that is not ours to have: a fixture of the suite's reference server. */
function suiteFixtureOf(message) {
  const match =
    /Unknown tool: (\S+)/.exec(message) ??
    /Tool '([^']+)' not found/.exec(message) ??
    /Unknown prompt: (\S+)/.exec(message) ??
    /Resource not found: (\S+)/.exec(message);
  return match ? match[1] : null;
}

async function runScenario(node22, cli, scenario, url, outDir, capabilities) {
  const scenarioDir = path.join(outDir, 'scenarios');
  const result = spawnSync(node22, [cli, 'server', '--url', url, '--scenario', scenario, '-o', scenarioDir], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  await writeFile(path.join(outDir, `${scenario}.out.txt`), `${result.stdout ?? ''}${result.stderr ?? ''}`);
  const saved = (await readdir(scenarioDir).catch(() => [])).filter((name) => name.startsWith(`server-${scenario}-`)).sort();
  const checks = saved.length > 0 ? JSON.parse(await readFile(path.join(scenarioDir, saved.at(-1), 'checks.json'), 'utf8')) : [];
  const count = (status) => checks.filter((check) => check.status === status).length;
  const failures = checks.filter((check) => check.status === 'FAILURE');
  const warnings = checks.filter((check) => check.status === 'WARNING');
  const capability = capabilityOf(scenario);
  const isDeclared = declared(capability, capabilities);
  const outcome = checks.length === 0 ? 'FAIL' : failures.length > 0 ? 'FAIL' : 'PASS';
  const message = failures[0]?.errorMessage ?? (checks.length === 0 ? `no result (exit ${result.status ?? result.signal})` : '');
  const fixture = failures.length > 0 ? suiteFixtureOf(message) : null;
  let note = '';
  if (fixture) note = `needs the suite's own \`${fixture}\``;
  if (outcome === 'FAIL' && !isDeclared) note = note ? `${note}; \`${capability}\` not declared` : `\`${capability}\` not declared`;
  if (outcome === 'FAIL' && !note) note = message;
  if (outcome === 'PASS' && warnings.length > 0) note = warnings.map((check) => `${check.id} (SHOULD)`).join(', ');
  return {
    scenario,
    capability: `${capability}${isDeclared ? '' : ' (not declared)'}`,
    outcome,
    checks: `${count('SUCCESS')}/${count('SUCCESS') + failures.length}${warnings.length ? `, ${warnings.length} warning(s)` : ''}`,
    note,
    explained: outcome === 'PASS' || Boolean(fixture) || !isDeclared,
    message,
  };
}

function markdownTable(rows) {
  const lines = ['| scenario | capability | result | checks passed | note |', '|---|---|---|---|---|'];
  for (const row of rows)
    lines.push(`| \`${row.scenario}\` | ${row.capability} | ${row.outcome} | ${row.checks} | ${row.note.replace(/\|/g, '\\|')} |`);
  return lines.join('\n');
}

async function stopChildren() {
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.stopping = true;
          child.once('exit', resolve);
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
        }),
    ),
  );
}

async function removeRunData(database, queuePrefix) {
  const admin = new pg.Client({ connectionString: Object.assign(new URL(DATABASE_SERVER_URL), { pathname: '/postgres' }).toString() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    for await (const keys of redis.scanStream({ match: `${queuePrefix}:*`, count: 500 })) if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

let finishing = false;
async function finish(code) {
  if (finishing) return;
  finishing = true;
  await stopChildren();
  await cleanup().catch((error) => console.error(`mcp-conformance: cleanup failed: ${error.message}`));
  process.exit(code);
}
