// Fuzz drill: thousands of malformed and hostile requests over REST, gRPC and MCP against the built
// registry (dist/, run `npm run build` first) in a child process with a private database and Redis
// prefix. Fails (exit 1) on any 5xx, hang, crash, state change or error answer that is not problem
// details. Usage: npm run drill:fuzz -- [--cases 10000] [--seed S] [--concurrency 8]
//   [--timeout-ms 10000] [--max-seconds 600] [--only rest,grpc,mcp] [--case i,j (replay)]
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { readCommandLine } from '../../scripts/command-line.mjs';
import { serviceEntry } from '../../scripts/service-entries.mjs';
import { deleteRedisKeys } from '../../bench/support/redis-cleanup.mjs';
import {
  ADMIN_TOKEN,
  REPO_ROOT,
  benchDatabaseUrl,
  dropDatabase,
  freePort,
  startRegistryProcess,
  stopProcess,
} from '../../bench/support/registry-process.mjs';
import { runDrill } from './drill.mjs';
import { writeEchoSkills } from './fixture.mjs';
import { formatReport } from './run.mjs';

const { values: args } = readCommandLine(
  'usage: npm run drill:fuzz -- [--cases 10000] [--seed S] [--concurrency 8] [--timeout-ms 10000] [--max-seconds 600] [--only rest,grpc,mcp] [--case i,j (replay)]',
  {
    options: {
      cases: { type: 'string', default: '10000' },
      seed: { type: 'string' },
      concurrency: { type: 'string', default: '8' },
      'timeout-ms': { type: 'string', default: '10000' },
      'max-seconds': { type: 'string', default: '600' },
      only: { type: 'string' },
      case: { type: 'string' },
    },
  },
);
const seed = args.seed !== undefined ? Number(args.seed) : Math.floor(Math.random() * 2 ** 31);
const pick = args.case?.split(',').map(Number);
const count = pick ? Math.max(...pick) + 1 : Number(args.cases);
const maxSeconds = Number(args['max-seconds']);
const replay = pick ? `--seed ${seed} --case ${pick.join(',')}` : `--seed ${seed} --cases ${count}`;
console.log(`fuzz drill: seed ${seed} (replay: npm run drill:fuzz -- ${replay}; one case: --case <#>), max ${maxSeconds} s`);

if (!existsSync(serviceEntry('registry'))) {
  console.error(`${serviceEntry('registry')} is missing: run \`npm run build\` first`);
  process.exit(2);
}

const tokens = { admin: ADMIN_TOKEN, agent: 'fuzz-agent-token-0001' };
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const queuePrefix = `fuzz-drill-${process.pid}-${Date.now()}`;
const databaseUrl = benchDatabaseUrl();
const root = await writeEchoSkills();
let registry = null;
let exitCode;
let exited = null;
let interrupted = false;
process.once('SIGINT', () => (interrupted = true));
try {
  const grpcPort = await freePort();
  registry = await startRegistryProcess({
    DATABASE_URL: databaseUrl,
    SKILL_PATHS: [path.join(REPO_ROOT, 'skills'), root].join(':'),
    QUEUE_PREFIX: queuePrefix,
    REDIS_URL: redisUrl,
    GRPC_PORT: String(grpcPort),
    AGENT_TOKENS: `fuzz-agent=${tokens.agent}`,
    LOG_LEVEL: process.env.FUZZ_REGISTRY_LOG_LEVEL ?? 'silent',
  });
  registry.child.on('exit', (code, signal) => (exited = signal ?? code));
  const outcome = await runDrill({ baseUrl: registry.url, grpcPort, databaseUrl }, tokens, {
    seed,
    count,
    pick,
    concurrency: Number(args.concurrency),
    timeoutMs: Number(args['timeout-ms']),
    maxSeconds,
    only: args.only?.split(','),
    isCrashed: () => exited !== null || interrupted,
    onProgress: (done) => done % 1000 === 0 && console.log(`  ${done} cases sent`),
    log: console.log,
  });
  const crashed = exited !== null;
  console.log(formatReport({ ...outcome, crashed, tokens, seed }));
  if (crashed) console.log(`registry exited with ${exited}`);
  exitCode = outcome.summary.failures.length || outcome.stateChanges.length || crashed ? 1 : 0;
} catch (error) {
  console.error(`fuzz drill could not run: ${error.stack ?? error}`);
  exitCode = 2;
} finally {
  if (registry) await stopProcess(registry.child);
  // FUZZ_KEEP_DATABASE=1 keeps the database to inspect a state change (its URL is printed).
  if (process.env.FUZZ_KEEP_DATABASE === '1') console.log(`database kept: ${databaseUrl}`);
  else await dropDatabase(databaseUrl).catch(() => undefined);
  await deleteRedisKeys(redisUrl, queuePrefix).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
}
process.exit(exitCode);
