import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { runContractOf, type StoredScriptTool } from '#contracts/index.js';
import {
  EXECUTION_JOB,
  EXECUTION_QUEUE,
  ExecutionEventLog,
  ExecutionsRepository,
  cancelChannel,
  executionJobOptions,
  isTerminal,
  maxAttemptsFor,
  type ExecutionRecord,
} from '#executions/index.js';
import { PackageStore, readPackageDir } from '#package-store/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { EXECUTION_SKILLS_ROOT, eventually, obliterateQueue } from '../support/executions.js';
import { REPO_ROOT } from '../support/skill-packages.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SCRIPTS_PACKAGE = path.join(REPO_ROOT, 'test/fixtures/script-tools/demo_scripts');

const echoOutput = {
  type: 'object',
  properties: { echo: { type: 'string' }, len: { type: 'integer' }, env: { type: 'object' } },
  required: ['echo', 'len'],
};

/** A tools.yaml entry as the registry stores it. */
function tool(name: string, overrides: Partial<StoredScriptTool>): StoredScriptTool {
  return {
    name,
    qualified_name: `demo_scripts__${name}`,
    description: `The ${name} tool.`,
    input_schema: { type: 'object' },
    output_schema: null,
    read_only: true,
    destructive: false,
    idempotent: false,
    timeout_seconds: 10,
    retries: 0,
    search_aliases: [],
    next_tools: { on_success: [], on_failure: [] },
    annotations: {},
    examples: [],
    script: null,
    not_executable_reason: null,
    ...overrides,
  };
}

const python = (file: string) => ({ path: `scripts/${file}`, interpreter: 'python3' as const });
const TOOLS: StoredScriptTool[] = [
  tool('echo', {
    idempotent: true,
    input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    output_schema: echoOutput,
    script: python('echo.py'),
  }),
  tool('fail_retried', { idempotent: true, retries: 1, script: { path: 'scripts/fail.sh', interpreter: 'bash' } }),
  tool('fail_once', { idempotent: false, retries: 1, script: { path: 'scripts/fail.sh', interpreter: 'bash' } }),
  tool('slow', { timeout_seconds: 1, script: python('slow.py') }),
  tool('wait', { timeout_seconds: 30, script: python('slow.py') }),
  tool('wrong', { output_schema: echoOutput, script: python('wrong.py') }),
  tool('manual', { not_executable_reason: 'needs a desktop session (interactive GUI tool)' }),
];

interface Version {
  id: string;
  name: string;
  version: string;
  format: 'typescript' | 'agent-skills';
  tools: StoredScriptTool[];
  idempotent: boolean;
  retries: number;
  timeoutSeconds: number;
  maxRetriesPerGate: number;
  inputSchema: Record<string, unknown> | null;
  outputSchema: Record<string, unknown> | null;
}

/**
 * The executor runs Agent Skills script tools in the sandbox (bubblewrap, as nobody) with the same
 * attempt semantics as TypeScript skills: real Postgres, Redis, executor process; versions are inserted
 * directly (the registry cannot register Agent Skills packages yet), their packages stored as usual.
 */
describe('script tools on the executor', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let redis: Redis;
  let queue: Queue;
  let executions: ExecutionsRepository;
  let events: ExecutionEventLog;
  let executor: RunningExecutor | undefined;
  let scripts: Version;
  let typescript: Version;
  const queuePrefix = `test-script-tools-${process.pid}-${Date.now()}`;
  // Not created yet: the executor makes it (0755), so the sandbox user can reach the packages inside.
  const cacheDir = path.join(tmpdir(), `script-tools-cache-${process.pid}-${Date.now()}`);
  let blockedParent: string | undefined;

  beforeAll(async () => {
    db = await createTestDatabase('script_tools');
    pool = new pg.Pool({ connectionString: db.url, max: 3 });
    redis = new Redis(REDIS_URL);
    queue = new Queue(EXECUTION_QUEUE, { connection: { url: REDIS_URL }, prefix: queuePrefix });
    executions = new ExecutionsRepository(pool);
    events = new ExecutionEventLog(redis, queuePrefix);
    scripts = await insertVersion({ name: 'demo_scripts', format: 'agent-skills', packageDir: SCRIPTS_PACKAGE, tools: TOOLS });
    typescript = await insertVersion({
      name: 'quick_noop',
      format: 'typescript',
      packageDir: path.join(EXECUTION_SKILLS_ROOT, 'testing/quick_noop'),
      tools: [],
      schemaRefs: ['schema.TestInput', 'schema.TestOutput'],
      inputSchema: { type: 'object', properties: { marker: { type: 'string' } }, required: ['marker'] },
      outputSchema: { type: 'object', properties: { attempt: { type: 'integer' } }, required: ['attempt'] },
    });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env: { PACKAGE_CACHE_DIR: cacheDir } });
  });

  afterAll(async () => {
    await executor?.stop();
    await queue?.close();
    redis?.disconnect();
    await obliterateQueue(queuePrefix);
    await pool?.end();
    await db?.drop();
    await rm(cacheDir, { recursive: true, force: true });
    if (blockedParent) await rm(blockedParent, { recursive: true, force: true });
  });

  /** Stores the package and inserts an ACTIVE version of it, as registration would. */
  async function insertVersion(spec: {
    name: string;
    format: 'typescript' | 'agent-skills';
    packageDir: string;
    tools: StoredScriptTool[];
    schemaRefs?: [string, string];
    inputSchema?: Record<string, unknown>;
    outputSchema?: Record<string, unknown> | null;
  }): Promise<Version> {
    const { contentHash } = await new PackageStore(pool).save(await readPackageDir(spec.packageDir));
    const first = spec.tools[0];
    const inputSchema = spec.inputSchema ?? first?.input_schema ?? null;
    const outputSchema = spec.outputSchema ?? first?.output_schema ?? null;
    const [idempotent, retries, timeoutSeconds] = first ? [first.idempotent, first.retries, first.timeout_seconds] : [true, 0, 10];
    const skillId = randomUUID();
    const versionId = randomUUID();
    await pool.query(`INSERT INTO skills (id, name, updated_at) VALUES ($1, $2, now())`, [skillId, spec.name]);
    await pool.query(
      `INSERT INTO skill_versions (id, skill_id, version, version_major, version_minor, version_patch, domain, agent, description,
         phase, tools_required, input_schema_ref, output_schema_ref, input_schema, output_schema, timeout_seconds, retries,
         idempotent, tags, examples, package_path, content_hash, validation, status, status_changed_at, updated_at, format, tools)
       VALUES ($1, $2, '1.0.0', 1, 0, 0, 'testing', 'testing', 'A test-only skill.', 1, '[]', $3, $4, $5, $6, $7, $8, $9,
         '{test-only}', '[]', $10, $11, '[]', 'ACTIVE', now(), now(), $12, $13)`,
      [
        versionId,
        skillId,
        spec.schemaRefs?.[0] ?? '',
        spec.schemaRefs?.[1] ?? '',
        inputSchema && JSON.stringify(inputSchema),
        outputSchema && JSON.stringify(outputSchema),
        timeoutSeconds,
        retries,
        idempotent,
        `/nowhere/${spec.name}`,
        contentHash,
        spec.format,
        JSON.stringify(spec.tools),
      ],
    );
    return {
      id: versionId,
      name: spec.name,
      version: '1.0.0',
      format: spec.format,
      tools: spec.tools,
      idempotent,
      retries,
      timeoutSeconds,
      maxRetriesPerGate: 0,
      inputSchema,
      outputSchema,
    };
  }

  /** Creates and queues an execution the way ExecuteSkill does (max attempts from the execution's contract). */
  async function enqueue(version: Version, toolName: string | null, input: Record<string, unknown>): Promise<string> {
    const contract = runContractOf(version, toolName);
    const { record } = await executions.create({
      skillVersionId: version.id,
      skillName: version.name,
      version: version.version,
      purpose: 'call',
      input,
      maxAttempts: contract ? maxAttemptsFor(contract) : 1,
      warnings: [],
      sessionId: null,
      caller: 'script-tools-test',
      idempotencyKey: null,
      requestHash: null,
      tool: toolName,
    });
    await events.append(
      { executionId: record.id, skill: version.name, sessionId: null },
      { type: 'queued', at: new Date().toISOString(), skill: version.name, version: version.version },
    );
    await queue.add(EXECUTION_JOB, { executionId: record.id }, executionJobOptions(record.id));
    return record.id;
  }

  async function finished(id: string, timeoutMs = 20_000): Promise<ExecutionRecord> {
    let record: ExecutionRecord | null = null;
    await eventually(async () => {
      record = await executions.findById(id);
      return record !== null && isTerminal(record.status);
    }, timeoutMs);
    return record as unknown as ExecutionRecord;
  }

  const run = async (version: Version, toolName: string | null, input: Record<string, unknown> = {}) =>
    finished(await enqueue(version, toolName, input));

  async function executorHealth(endpoint: '/healthz' | '/readyz'): Promise<any> {
    return (await fetch(`http://127.0.0.1:${executor?.port}${endpoint}`)).json();
  }

  /**
   * The execution's event types once its final event is there: the executor appends it right after the
   * terminal row is committed, so a reader that saw the row may be a moment ahead of the stream.
   */
  async function eventTypes(id: string): Promise<string[]> {
    const read = async () => (await events.read(id, '0', 0)).map(({ event }) => event.type);
    await eventually(async () => ['succeeded', 'failed', 'cancelled'].includes((await read()).at(-1) ?? ''), 5000);
    return read();
  }

  it('runs a python tool in the sandbox and stores its output, with the execution named in its environment', async () => {
    const id = await enqueue(scripts, 'echo', { text: 'héllo' });
    const record = await finished(id);
    expect(record).toMatchObject({ status: 'SUCCEEDED', attempts: 1, error: null });
    expect(record.output).toEqual({
      echo: 'héllo',
      len: 5,
      env: { SKILL_NAME: 'demo_scripts', SKILL_VERSION: '1.0.0', SKILL_TOOL: 'echo', EXECUTION_ID: id },
    });
    expect(await eventTypes(id)).toEqual(['queued', 'started', 'succeeded']);
  });

  it('a bash script exiting non-zero fails HANDLER_ERROR with its exit code and the tail of its stderr', async () => {
    const record = await run(scripts, 'fail_once');
    expect(record).toMatchObject({ status: 'FAILED', attempts: 1 });
    expect(record.error).toMatchObject({
      code: 'HANDLER_ERROR',
      details: { exit_code: 3, stderr_tail: expect.stringContaining('the disk is on fire') },
    });
    // Not idempotent: one attempt, whatever its retries say.
    expect(await eventTypes(record.id)).toEqual(['queued', 'started', 'failed']);
  });

  it('an idempotent tool with retries: 1 that fails is attempted twice', async () => {
    const record = await run(scripts, 'fail_retried');
    expect(record).toMatchObject({ status: 'FAILED', attempts: 2, maxAttempts: 2, error: { code: 'HANDLER_ERROR' } });
    await eventTypes(record.id);
    const stored = (await events.read(record.id, '0', 0)).map(({ event }) => event);
    expect(stored.map((event) => event.type)).toEqual(['queued', 'started', 'attempt_failed', 'started', 'failed']);
    expect(stored[2]).toMatchObject({ attempt: 1, error: { code: 'HANDLER_ERROR', details: { exit_code: 3 } } });
  });

  it("stops a script at its tool's timeout_seconds: HANDLER_TIMEOUT", async () => {
    const id = await enqueue(scripts, 'slow', {});
    await eventually(async () => (await executions.findById(id))?.status === 'RUNNING');
    const started = Date.now();
    const record = await finished(id);
    const elapsed = Date.now() - started;
    expect(record).toMatchObject({ status: 'FAILED', attempts: 1, error: { code: 'HANDLER_TIMEOUT', details: { timeout_ms: 1000 } } });
    expect(elapsed).toBeGreaterThanOrEqual(700);
    expect(elapsed).toBeLessThan(15_000); // the script never ends by itself: any bound this wide tells the two apart
  });

  it('a cancellation published to the executors stops the running script: CANCELLED', async () => {
    const id = await enqueue(scripts, 'wait', {});
    await eventually(async () => (await executions.findById(id))?.status === 'RUNNING');
    await new Promise((resolve) => setTimeout(resolve, 300)); // the script is started
    // What CancelExecution does for a running execution.
    expect(await executions.requestCancel(id)).toBe('RUNNING');
    const requested = Date.now();
    await redis.publish(cancelChannel(queuePrefix), id);
    const record = await finished(id);
    expect(record).toMatchObject({ status: 'CANCELLED', error: { code: 'CANCELLED' } });
    expect(Date.now() - requested).toBeLessThan(20_000); // well inside the tool's 30 s timeout
    expect((await eventTypes(id)).at(-1)).toBe('cancelled');
  });

  it('output that violates the tool output schema fails OUTPUT_INVALID', async () => {
    const record = await run(scripts, 'wrong');
    expect(record).toMatchObject({ status: 'FAILED', output: null, error: { code: 'OUTPUT_INVALID' } });
    expect(record.error?.details.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer: '/echo' })]));
  });

  it('a tool without a script fails PRECONDITION_FAILED with its not_executable_reason', async () => {
    const record = await run(scripts, 'manual');
    expect(record).toMatchObject({
      status: 'FAILED',
      error: {
        code: 'PRECONDITION_FAILED',
        details: { tool: 'manual', not_executable_reason: 'needs a desktop session (interactive GUI tool)' },
      },
    });
  });

  it('an execution naming a tool the version does not have fails HANDLER_ERROR naming it', async () => {
    const record = await run(scripts, 'no_such_tool');
    expect(record).toMatchObject({
      status: 'FAILED',
      error: { code: 'HANDLER_ERROR', message: expect.stringContaining("'no_such_tool'") },
    });
  });

  it('after all of that the executor still serves script tools and TypeScript skills, and says script tools can run', async () => {
    expect(await run(scripts, 'echo', { text: 'again' })).toMatchObject({ status: 'SUCCEEDED', output: { echo: 'again', len: 5 } });
    expect(await run(typescript, null, { marker: 'abcd' })).toMatchObject({ status: 'SUCCEEDED', output: { attempt: 4 } });
    const health = await executorHealth('/readyz');
    expect(health).toMatchObject({ status: 'ok', script_tools: { isolation: 'bubblewrap', available: true, reason: null } });
  });

  it('with a package cache the sandbox user cannot reach: the executor starts, TypeScript skills run, script tools fail PRECONDITION_FAILED', async () => {
    await executor?.stop();
    blockedParent = await mkdtemp(path.join(tmpdir(), 'script-tools-private-')); // 0700, like a home directory
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env: { PACKAGE_CACHE_DIR: path.join(blockedParent, 'cache') } });
    const health = await executorHealth('/healthz');
    expect(health.script_tools).toMatchObject({ available: false, reason: expect.stringContaining(blockedParent) });

    expect(await run(typescript, null, { marker: 'ab' })).toMatchObject({ status: 'SUCCEEDED', output: { attempt: 2 } });
    const record = await run(scripts, 'echo', { text: 'x' });
    expect(record).toMatchObject({
      status: 'FAILED',
      error: { code: 'PRECONDITION_FAILED', message: expect.stringContaining('PACKAGE_CACHE_DIR') },
    });
    expect(executor.output()).toContain('script tools cannot run');
  });
});
