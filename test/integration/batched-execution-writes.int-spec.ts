import pg from 'pg';
import {
  BatchedExecutionWrites,
  EXECUTION_FINISHED_CHANNEL,
  ExecutionsRepository,
  decodeFinished,
  type ExecutionRecord,
  type NewExecution,
} from '#executions/index.js';
import { PgListener, createPgPool, createPrismaClient, type PrismaClient } from '#database/index.js';
import { SkillsRepository } from '../../apps/registry/src/catalog/skills.repository.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { eventually } from '../support/executions.js';

/**
 * Group commit of the execution write path against the real Postgres: concurrent creates, attempt
 * starts and finishes share statements, and still each caller gets its own row and its own guard's
 * verdict, only once its row is committed.
 */
describe('batched execution writes (group commit)', () => {
  let db: TestDatabase;
  let prisma: PrismaClient;
  let pool: pg.Pool;
  let executions: ExecutionsRepository;
  let statements: string[];
  let versionId: string;

  beforeAll(async () => {
    db = await createTestDatabase('batched_writes');
    prisma = createPrismaClient(createPgPool(db.url, 2));
    pool = new pg.Pool({ connectionString: db.url, max: 8 });
    const skills = new SkillsRepository(prisma, pool, new PgListener(db.url));
    const created = await skills.createVersion(
      {
        name: 'alpha',
        version: '1.0.0',
        versionKey: [1, 0, 0, ''],
        domain: 'demo',
        agent: 'demo',
        description: 'A skill for group commit tests.',
        phase: 1,
        toolsRequired: [],
        inputSchemaRef: 'schema.In',
        outputSchemaRef: 'schema.Out',
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object' },
        timeoutSeconds: 10,
        retries: 2,
        idempotent: true,
        maxRetriesPerGate: 0,
        tags: [],
        examples: [],
        readOnly: false,
        dependsOn: [],
        compatibility: 'backward',
        format: 'typescript',
        tools: [],
        agentSkill: null,
        exposure: {},
        packagePath: '/skills/demo/alpha',
        contentHash: 'sha256:' + '0'.repeat(64),
        validation: [],
        status: 'ACTIVE',
        statusReason: 'test',
      },
      { from: null, to: 'ACTIVE', actor: 'test', reason: 'created' },
    );
    versionId = created!.id;
    // Counts the statements the writers send, so a test can tell a shared flush from one statement per call.
    statements = [];
    const counted = Object.create(pool) as pg.Pool;
    counted.query = ((config: { name?: string }, ...rest: unknown[]) => {
      if (config && typeof config === 'object' && config.name) statements.push(config.name);
      return (pool.query as (...args: unknown[]) => unknown).call(pool, config, ...rest);
    }) as pg.Pool['query'];
    executions = new ExecutionsRepository(counted);
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    await pool?.end();
    await db?.drop();
  });

  const newExecution = (overrides: Partial<NewExecution> = {}): NewExecution => ({
    skillVersionId: versionId,
    skillName: 'alpha',
    version: '1.0.0',
    purpose: 'call',
    input: { n: Math.random() },
    maxAttempts: 3,
    warnings: [],
    sessionId: null,
    caller: 'bot',
    idempotencyKey: null,
    requestHash: null,
    ...overrides,
  });

  const statementsOf = (name: string) => statements.filter((statement) => statement === `executions.${name}`).length;
  /** The backend of a flush waiting for a row lock, once there is one. */
  const blockedFlush = async (): Promise<number | null> => {
    const { rows } = await pool.query(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%UPDATE executions e%'`,
    );
    return rows.length === 1 ? (rows[0].pid as number) : null;
  };
  const rowOf = async (id: string) => (await pool.query('SELECT * FROM executions WHERE id = $1', [id])).rows[0];

  it('concurrent creates share one INSERT, and each caller gets its own committed row', async () => {
    const writes = new BatchedExecutionWrites(executions, { maxBatch: 64, windowMs: 2 });
    statements.length = 0;
    const inputs = Array.from({ length: 20 }, (_, index) => ({ index }));
    const created = await Promise.all(inputs.map((input) => writes.create(newExecution({ input }))));
    expect(statementsOf('createMany')).toBe(1);
    expect(new Set(created.map(({ record }) => record.id)).size).toBe(20);
    for (const [index, { record, created: isNew }] of created.entries()) {
      expect(isNew).toBe(true);
      expect(record.input).toEqual({ index });
      // When the caller hears of its row, the row is committed: another connection sees it.
      expect((await rowOf(record.id)).status).toBe('QUEUED');
    }
  });

  it("a waiting call's creates share one INSERT, committed (visible to others) without a flush of their own", async () => {
    const writes = new BatchedExecutionWrites(executions, { maxBatch: 64, windowMs: 2 });
    statements.length = 0;
    const created = await Promise.all(Array.from({ length: 10 }, (_, index) => writes.createAwaited(newExecution({ input: { index } }))));
    expect(statementsOf('createManyUnflushed')).toBe(1);
    expect(statementsOf('createMany')).toBe(0);
    for (const { record } of created) expect((await rowOf(record.id)).status).toBe('QUEUED');
  });

  it('the unflushed create turns synchronous_commit off for its own transaction only; the flushed one leaves it on', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const repository = new ExecutionsRepository(client as unknown as pg.Pool);
      const setting = async () => (await client.query('SHOW synchronous_commit')).rows[0].synchronous_commit as string;
      for (const [commit, during] of [
        ['unflushed', 'off'],
        ['flushed', 'on'],
      ] as const) {
        await client.query('BEGIN');
        await repository.createMany([newExecution()], commit);
        expect(await setting()).toBe(during);
        await client.query('COMMIT');
        expect(await setting()).toBe('on');
      }
    } finally {
      await client.end();
    }
  });

  it('findByIdFlushed answers once the WAL is on disk past its row, an unflushed create included; null for no row', async () => {
    for (let round = 0; round < 5; round++) {
      const { record } = (await executions.createMany([newExecution()], 'unflushed'))[0]!;
      const written = (await pool.query('SELECT pg_current_wal_insert_lsn() AS lsn')).rows[0].lsn as string;
      expect(await executions.findByIdFlushed(record.id)).toMatchObject({ id: record.id, status: 'QUEUED', input: record.input });
      const { rows } = await pool.query('SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn AS flushed', [written]);
      expect(rows[0].flushed).toBe(true);
    }
    expect(await executions.findByIdFlushed('00000000-0000-4000-8000-000000000000')).toBeNull();
  });

  it('creates with one idempotency key: the first creates, the others get that same execution', async () => {
    const writes = new BatchedExecutionWrites(executions, { maxBatch: 64, windowMs: 2 });
    const key = `key-${Math.random()}`;
    const results = await Promise.all([
      writes.create(newExecution({ idempotencyKey: key, input: { first: true } })),
      writes.create(newExecution({ idempotencyKey: key, input: { second: true } })),
      writes.create(newExecution({ caller: 'other-bot', idempotencyKey: key })),
    ]);
    expect(results.map(({ created }) => created)).toEqual([true, false, true]);
    expect(results[1]!.record.id).toBe(results[0]!.record.id);
    expect(results[1]!.record.input).toEqual({ first: true });
    expect(results[2]!.record.id).not.toBe(results[0]!.record.id);
  });

  it('concurrent starts and finishes of many executions: one statement per flush, each caller its own row', async () => {
    const writes = new BatchedExecutionWrites(executions, { maxBatch: 64, windowMs: 2 });
    const records = await Promise.all(Array.from({ length: 30 }, () => writes.create(newExecution())));
    const ids = records.map(({ record }) => record.id);
    statements.length = 0;
    const started = await Promise.all(ids.map((id) => writes.startAttempt(id)));
    expect(statementsOf('startAttempts')).toBeLessThan(ids.length);
    expect(started.map((record) => record?.id)).toEqual(ids);
    expect(started.every((record) => record?.status === 'RUNNING' && record.attempts === 1 && record.attemptRunning)).toBe(true);

    statements.length = 0;
    const finished = await Promise.all(ids.map((id, index) => writes.finish(id, 'SUCCEEDED', { output: { index } }, { attempt: 1 })));
    expect(statementsOf('finishMany')).toBeLessThan(ids.length);
    for (const [index, record] of finished.entries()) {
      expect(record).toMatchObject({ id: ids[index], status: 'SUCCEEDED', output: { index }, attemptRunning: false });
      expect((await rowOf(ids[index]!)).status).toBe('SUCCEEDED');
    }
  });

  it('a start written after its attempt ran (a deferred start) is recorded that long ago; a later attempt keeps the first start', async () => {
    const writes = new BatchedExecutionWrites(executions, { maxBatch: 64, windowMs: 2 });
    const [deferred, plain] = await Promise.all([writes.create(newExecution()), writes.create(newExecution())]);
    // Created a while ago (a start is never recorded before its row's creation, see the repositories' tests).
    await pool.query(`UPDATE executions SET created_at = created_at - interval '10 seconds' WHERE id = $1`, [deferred.record.id]);
    const before = Date.now();
    const [late, now] = await Promise.all([writes.startAttempt(deferred.record.id, 1500), writes.startAttempt(plain.record.id)]);
    const after = Date.now();
    // One clock on this machine; a few ms of slack for the statement's own time.
    expect(late!.startedAt!.getTime()).toBeGreaterThanOrEqual(before - 1500 - 5);
    expect(late!.startedAt!.getTime()).toBeLessThanOrEqual(after - 1500 + 5);
    expect(now!.startedAt!.getTime()).toBeGreaterThanOrEqual(before - 5);
    // A retry's start (the row back to QUEUED) does not move the execution's start.
    await pool.query(`UPDATE executions SET status = 'QUEUED', attempt_running = false WHERE id = $1`, [deferred.record.id]);
    const retried = await writes.startAttempt(deferred.record.id, 10);
    expect(retried).toMatchObject({ attempts: 2, startedAt: late!.startedAt });
  });

  it('a guard that fails for one row does not affect the others in its flush', async () => {
    const writes = new BatchedExecutionWrites(executions, { maxBatch: 64, windowMs: 2 });
    const ids = (await Promise.all(Array.from({ length: 4 }, () => writes.create(newExecution())))).map(({ record }) => record.id);
    await Promise.all(ids.map((id) => writes.startAttempt(id)));
    // The second execution's attempt 1 was taken over meanwhile: its worker's finish must be refused.
    await pool.query(`UPDATE executions SET attempts = 2 WHERE id = $1`, [ids[1]]);
    // The fourth is asked to be settled as lost, but its heartbeat is fresh: that guard fails too.
    statements.length = 0;
    const results = await Promise.all([
      writes.finish(ids[0]!, 'SUCCEEDED', { output: { ok: 0 } }, { attempt: 1 }),
      writes.finish(ids[1]!, 'SUCCEEDED', { output: { late: true } }, { attempt: 1 }),
      writes.finish(ids[2]!, 'FAILED', { error: { code: 'HANDLER_ERROR', message: 'x', details: {} } }, { attempt: 1 }),
      writes.finish(
        ids[3]!,
        'FAILED',
        { error: { code: 'WORKER_LOST', message: 'lost', details: {} } },
        { attempt: 1, staleForMs: 60_000 },
      ),
    ]);
    expect(statementsOf('finishMany')).toBe(1);
    expect(results.map((record) => record?.status ?? null)).toEqual(['SUCCEEDED', null, 'FAILED', null]);
    expect((await rowOf(ids[1]!)).status).toBe('RUNNING');
    expect((await rowOf(ids[3]!)).status).toBe('RUNNING');
    // Starts: an execution whose attempt is already running is not started again, the others are.
    const again = await Promise.all([writes.startAttempt(ids[3]!), writes.startAttempt(ids[0]!)]);
    expect(again).toEqual([null, null]);
  });

  it('two finishes of one execution never share a statement: exactly one decides', async () => {
    const writes = new BatchedExecutionWrites(executions, { maxBatch: 64, windowMs: 2 });
    const { record } = await writes.create(newExecution());
    await writes.startAttempt(record.id);
    const results = await Promise.all([
      writes.finish(record.id, 'SUCCEEDED', { output: { first: true } }, { attempt: 1 }),
      writes.finish(record.id, 'FAILED', { error: { code: 'HANDLER_ERROR', message: 'second', details: {} } }, { attempt: 1 }),
      writes.startAttempt(record.id),
    ]);
    expect(results[0]).toMatchObject({ status: 'SUCCEEDED', output: { first: true } });
    expect(results[1]).toBeNull();
    expect(results[2]).toBeNull();
  });

  it('every finished row is announced, after its commit, with its final record', async () => {
    const heard: ExecutionRecord[] = [];
    const listener = new PgListener(db.url);
    await listener.listen(EXECUTION_FINISHED_CHANNEL, (payload) => {
      const decoded = decodeFinished(payload);
      if (decoded?.execution) heard.push(decoded.execution);
    });
    try {
      const writes = new BatchedExecutionWrites(executions, { maxBatch: 64, windowMs: 2 });
      const ids = (await Promise.all(Array.from({ length: 10 }, () => writes.create(newExecution())))).map(({ record }) => record.id);
      await Promise.all(ids.map((id) => writes.startAttempt(id)));
      await Promise.all(ids.map((id, index) => writes.finish(id, 'SUCCEEDED', { output: { index } }, { attempt: 1 })));
      await eventually(async () => heard.filter((execution) => ids.includes(execution.id)).length === 10);
      for (const execution of heard.filter((candidate) => ids.includes(candidate.id))) {
        expect(execution.status).toBe('SUCCEEDED');
        expect(execution.output).toEqual({ index: ids.indexOf(execution.id) });
      }
    } finally {
      await listener.stop();
    }
  });

  it('a row the database refuses fails only its own caller; the rest of its flush is committed', async () => {
    const writes = new BatchedExecutionWrites(executions, { maxBatch: 64, windowMs: 2 });
    const ids = (await Promise.all(Array.from({ length: 3 }, () => writes.create(newExecution())))).map(({ record }) => record.id);
    await Promise.all(ids.map((id) => writes.startAttempt(id)));
    // jsonb cannot hold \u0000: this output is refused by Postgres, whatever the statement.
    const results = await Promise.allSettled([
      writes.finish(ids[0]!, 'SUCCEEDED', { output: { ok: true } }, { attempt: 1 }),
      writes.finish(ids[1]!, 'SUCCEEDED', { output: { text: 'nul \u0000 byte' } }, { attempt: 1 }),
      writes.finish(ids[2]!, 'SUCCEEDED', { output: { ok: true } }, { attempt: 1 }),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await rowOf(ids[0]!)).status).toBe('SUCCEEDED');
    expect((await rowOf(ids[1]!)).status).toBe('RUNNING');
    expect((await rowOf(ids[2]!)).status).toBe('SUCCEEDED');
  });

  it('a database failure fails every caller of that flush, and none of its rows is committed', async () => {
    const writes = new BatchedExecutionWrites(executions, { maxBatch: 64, windowMs: 2 });
    const ids = (await Promise.all(Array.from({ length: 3 }, () => writes.create(newExecution())))).map(({ record }) => record.id);
    await Promise.all(ids.map((id) => writes.startAttempt(id)));
    // Hold one of the rows, so the flush blocks inside its statement; then its connection is ended.
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM executions WHERE id = $1 FOR UPDATE', [ids[2]]);
      const flush = Promise.allSettled(ids.map((id) => writes.finish(id, 'SUCCEEDED', { output: { ok: true } }, { attempt: 1 })));
      let blocked: number | null = null;
      await eventually(async () => (blocked = await blockedFlush()) !== null);
      await pool.query('SELECT pg_terminate_backend($1)', [blocked]);
      const results = await flush;
      expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    for (const id of ids) expect((await rowOf(id)).status).toBe('RUNNING');
  });

  it('while a flush is stuck, later writes do not wait for it: they go in a flush of their own within the window', async () => {
    const writes = new BatchedExecutionWrites(executions, { maxBatch: 64, windowMs: 2 });
    const ids = (await Promise.all(Array.from({ length: 2 }, () => writes.create(newExecution())))).map(({ record }) => record.id);
    await Promise.all(ids.map((id) => writes.startAttempt(id)));
    const holder = await pool.connect();
    let stuck: Promise<ExecutionRecord | null> | undefined;
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM executions WHERE id = $1 FOR UPDATE', [ids[0]]);
      stuck = writes.finish(ids[0]!, 'SUCCEEDED', { output: { first: true } }, { attempt: 1 });
      let stuckSettled = false;
      void stuck.finally(() => (stuckSettled = true));
      await eventually(async () => (await blockedFlush()) !== null);
      // The first flush holds its statement open; the second write is flushed anyway and answered.
      expect(await writes.finish(ids[1]!, 'SUCCEEDED', { output: { second: true } }, { attempt: 1 })).toMatchObject({
        status: 'SUCCEEDED',
      });
      expect(stuckSettled).toBe(false);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(await stuck).toMatchObject({ status: 'SUCCEEDED', output: { first: true } });
  });
});
