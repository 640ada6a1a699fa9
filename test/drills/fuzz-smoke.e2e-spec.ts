import { rm } from 'node:fs/promises';
import path from 'node:path';
import { formatReport, runDrill, writeEchoSkills, type FuzzOutcome } from '../../drills/fuzz/index.mjs';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { obliterateQueue } from '../support/executions.js';
import { grpcPort } from '../support/grpc.js';
import { ADMIN_TOKEN, AGENT_TOKEN, startRegistry, type RunningRegistry } from '../support/registry.js';
import { REPO_ROOT } from '../support/skill-packages.js';

/**
 * Smoke version of drills/fuzz (npm run drill:fuzz): a few hundred hostile requests over REST, gRPC
 * and MCP against an in-process registry; none may answer 5xx, hang, or change the database.
 */
const FIXED_SEED = 20261201;
const tokens = { admin: ADMIN_TOKEN, agent: AGENT_TOKEN };

describe('drill smoke: fuzzing REST, gRPC and MCP with hostile input', () => {
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  const queuePrefix = `test-drill-fuzz-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase('drill_fuzz');
    root = await writeEchoSkills();
    registry = await startRegistry({
      databaseUrl: db.url,
      skillPaths: [path.join(REPO_ROOT, 'skills'), root],
      queuePrefix,
      agentTokens: true,
    });
  });

  afterAll(async () => {
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  const drill = (seed: number, count: number) =>
    runDrill({ baseUrl: registry.baseUrl, grpcPort: grpcPort(registry), databaseUrl: db.url }, tokens, { seed, count, maxSeconds: 100 });

  /** Empty when the run was clean; otherwise the drill's report, which names the seed and one reproduction per failure. */
  const problems = (outcome: FuzzOutcome, seed: number) =>
    outcome.summary.failures.length || outcome.stateChanges.length ? [formatReport({ ...outcome, crashed: false, tokens, seed })] : [];

  it('refuses 400 cases of a fixed seed cleanly on every transport', async () => {
    const outcome = await drill(FIXED_SEED, 400);
    expect(problems(outcome, FIXED_SEED)).toEqual([]);
    expect(outcome.stopped).toBeNull();
    expect(Object.keys(outcome.summary.perTransport).sort()).toEqual(['grpc', 'mcp', 'rest']);
  }, 150_000);

  // Seeds that once found a defect, replayed for good. The suite never draws a random seed: a random draw that finds
  // a new defect fails a landing that did not cause it. Exploration is `npm run drill:fuzz` (a random seed each run,
  // thousands of cases); a seed it finds failing is added here with its fix.
  it.each([[2070494216, 'a percent-escape that is not UTF-8 in a skill:// URI (resources/directory/read answered -32603)']])(
    'refuses 200 cases of seed %d cleanly (%s)',
    async (seed) => {
      const outcome = await drill(seed, 200);
      expect(problems(outcome, seed)).toEqual([]);
    },
    150_000,
  );
});
