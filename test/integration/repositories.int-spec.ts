import { randomUUID } from 'node:crypto';
import pg from 'pg';
import {
  EXECUTION_FINISHED_CHANNEL,
  ExecutionsRepository,
  FINISHED_PAYLOAD_MAX_BYTES,
  announcedExecutionId,
  decodeFinished,
  queuedRecordOf,
} from '#executions/index.js';
import { PgListener, createPgPool, createPrismaClient, type PrismaClient } from '#database/index.js';
import { SkillsRepository } from '../../apps/registry/src/catalog/skills.repository.js';
import type { NewSkillVersion } from '../../apps/registry/src/catalog/skill-records.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { eventually } from '../support/executions.js';

function newVersion(name: string, version = '1.0.0'): NewSkillVersion {
  return {
    name,
    version,
    versionKey: [1, 0, 0, ''],
    domain: 'demo',
    agent: 'demo',
    description: 'A skill for repository tests.',
    phase: 1,
    toolsRequired: [],
    inputSchemaRef: 'schema.In',
    outputSchemaRef: 'schema.Out',
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object' },
    timeoutSeconds: 10,
    retries: 0,
    idempotent: true,
    maxRetriesPerGate: 0,
    tags: ['a', 'b'],
    examples: [],
    readOnly: false,
    dependsOn: [],
    compatibility: 'backward',
    format: 'typescript',
    tools: [],
    agentSkill: null,
    exposure: {},
    packagePath: `/skills/demo/${name}`,
    contentHash: 'sha256:' + '0'.repeat(64),
    validation: [],
    status: 'REGISTERED',
    statusReason: 'validation passed',
  };
}

const creation = { from: null, to: 'REGISTERED' as const, actor: 'test', reason: 'created' } as const;

/** Counts the statements sent through `pool` from now on. */
function countStatements(pool: pg.Pool): () => number {
  let count = 0;
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    count++;
    return query(...args);
  };
  return () => count;
}

describe('repositories against the real Postgres', () => {
  let db: TestDatabase;
  let prisma: PrismaClient;
  let pool: pg.Pool;
  let skills: SkillsRepository;
  let executions: ExecutionsRepository;

  beforeAll(async () => {
    db = await createTestDatabase('repositories');
    prisma = createPrismaClient(createPgPool(db.url, 4));
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    skills = new SkillsRepository(prisma, pool, new PgListener(db.url));
    executions = new ExecutionsRepository(pool);
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    await pool?.end();
    await db?.drop();
  });

  it('creates a version with its creation event, and refuses the same version twice without throwing', async () => {
    const created = await skills.createVersion(newVersion('alpha'), creation);
    expect(created).toMatchObject({ name: 'alpha', version: '1.0.0', status: 'REGISTERED', lockVersion: 0, tags: ['a', 'b'] });
    expect(await skills.createVersion(newVersion('alpha'), creation)).toBeNull();
    const history = await skills.history('alpha');
    expect(history.map((event) => [event.from, event.to, event.actor])).toEqual([[null, 'REGISTERED', 'test']]);
  });

  it('creates several versions in one statement, each with its event and notification; one stored already is null, the rest go in', async () => {
    const changes: { name: string }[] = [];
    const listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    listener.on('notification', (message) => changes.push(JSON.parse(message.payload ?? '{}')));
    await listener.query('LISTEN skill_registry_changes');
    const statements = countStatements(pool);
    const at = new Date('2026-12-06T01:02:03.004Z');
    const results = await skills.createVersions([
      { version: { ...newVersion('gamma'), tags: ['x'], runtimes: [], runtimesProbedAt: at }, event: creation },
      { version: newVersion('alpha'), event: creation },
      {
        version: { ...newVersion('gamma', '1.1.0'), versionKey: [1, 1, 0, ''], inputSchema: null, status: 'DRAFT' },
        event: { ...creation, to: 'DRAFT' },
      },
      { version: newVersion('delta'), event: { ...creation, evidence: { content_hash: 'h', errors: 0 } } },
    ]);
    expect(statements()).toBe(1);
    expect(results.map((row) => row && [row.name, row.version, row.status])).toEqual([
      ['gamma', '1.0.0', 'REGISTERED'],
      null,
      ['gamma', '1.1.0', 'DRAFT'],
      ['delta', '1.0.0', 'REGISTERED'],
    ]);
    // Read back through the one reader: every column as written (arrays, JSON null, timestamps).
    expect(await skills.findVersion('gamma', '1.0.0')).toEqual(results[0]);
    expect(results[0]).toMatchObject({ tags: ['x'], runtimesProbedAt: at, inputSchema: { type: 'object' } });
    expect(results[2]).toMatchObject({ inputSchema: null, versionKey: [1, 1, 0, ''] });
    expect((await skills.history('gamma')).map((event) => [event.version, event.from, event.to])).toEqual(
      expect.arrayContaining([
        ['1.0.0', null, 'REGISTERED'],
        ['1.1.0', null, 'DRAFT'],
      ]),
    );
    expect((await skills.history('delta')).map((event) => event.evidence)).toEqual([{ content_hash: 'h', errors: 0 }]);
    expect((await skills.history('alpha')).length).toBe(1);
    const deadline = Date.now() + 5000;
    while (changes.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await listener.end();
    expect(changes.map((change) => change.name).sort()).toEqual(['delta', 'gamma', 'gamma']);
  });

  it('applies a move only at the expected optimistic-lock value', async () => {
    const current = (await skills.findVersion('alpha', '1.0.0'))!;
    const move = { from: 'REGISTERED' as const, to: 'ACTIVE' as const, actor: 'test', reason: 'promote' };
    const [first, second] = await Promise.all([
      skills.updateVersion(current, 'ACTIVE', {}, move),
      skills.updateVersion(current, 'ACTIVE', {}, move),
    ]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    const after = (await skills.findVersion('alpha', '1.0.0'))!;
    expect(after).toMatchObject({ status: 'ACTIVE', lockVersion: 1 });
    expect((await skills.history('alpha')).map((event) => event.to)).toEqual(['REGISTERED', 'ACTIVE']);
  });

  it('announces every change with the version and lock value reached', async () => {
    const changes: unknown[] = [];
    await skills.listenForChanges(
      (change) => changes.push(change),
      () => undefined,
    );
    const created = (await skills.createVersion(newVersion('beta'), creation))!;
    await skills.updateVersion(created, 'ACTIVE', {}, { from: 'REGISTERED', to: 'ACTIVE', actor: 'test', reason: null });
    const deadline = Date.now() + 5000;
    while (changes.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(changes).toEqual([
      { name: 'beta', versionId: created.id, lockVersion: 0 },
      { name: 'beta', versionId: created.id, lockVersion: 1 },
    ]);
  });

  it('keeps executions: idempotency keys per caller, one attempt at a time, one terminal state', async () => {
    const version = (await skills.findVersion('alpha', '1.0.0'))!;
    const request = {
      skillVersionId: version.id,
      skillName: 'alpha',
      version: '1.0.0',
      purpose: 'call' as const,
      input: { x: 1 },
      maxAttempts: 2,
      warnings: [],
      sessionId: 's1',
      caller: 'bot',
      idempotencyKey: 'k1',
      requestHash: 'h1',
    };
    const first = await executions.create(request);
    const again = await executions.create(request);
    const otherCaller = await executions.create({ ...request, caller: 'other' });
    expect(first.created).toBe(true);
    expect(again).toMatchObject({ created: false, record: { id: first.record.id } });
    expect(otherCaller.created).toBe(true);

    const attempt = await executions.startAttempt(first.record.id);
    expect(attempt).toMatchObject({ status: 'RUNNING', attempts: 1, attemptRunning: true });
    // A second pickup while the attempt is marked running is refused: that is how a lost worker shows.
    expect(await executions.startAttempt(first.record.id)).toBeNull();
    expect(await executions.finish(first.record.id, 'SUCCEEDED', { output: { y: 2 } })).toMatchObject({
      status: 'SUCCEEDED',
      output: { y: 2 },
    });
    expect(
      await executions.finish(first.record.id, 'FAILED', { error: { code: 'HANDLER_ERROR', message: 'late', details: {} } }),
    ).toBeNull();
    expect(await executions.requestCancel(first.record.id)).toBeNull();
    expect((await executions.findById(first.record.id))!.status).toBe('SUCCEEDED');
    const usage = await executions.usage('alpha');
    expect(usage[0]!.windows['7d']).toEqual({ executions: 2, callers: 2, sessions: 1 });
  });

  it('the QUEUED record built before an insert (a job enqueued alongside it) is the row the insert makes, but for its clock', async () => {
    const version = (await skills.findVersion('alpha', '1.0.0'))!;
    const execution = {
      id: randomUUID(),
      skillVersionId: version.id,
      skillName: 'alpha',
      version: '1.0.0',
      purpose: 'call' as const,
      input: { x: [1, 'two'] },
      maxAttempts: 3,
      warnings: ['deprecated'],
      sessionId: 's9',
      caller: 'bot',
      idempotencyKey: null,
      requestHash: null,
      tool: null,
      branch: 'main',
      traceId: 'a'.repeat(32),
      traceParent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`,
    };
    const before = queuedRecordOf(execution.id, execution, new Date());
    const [stored] = await executions.createMany([execution], 'unflushed');
    expect(stored!.record).toEqual({ ...before, createdAt: stored!.record.createdAt });
    expect(stored!.record.createdAt.getTime()).toBeGreaterThanOrEqual(before.createdAt.getTime() - 1000);
    // And a start written for a run that began before the row existed is not dated before the row's creation.
    const started = (await executions.startAttempt(execution.id, 60_000))!;
    expect(started.startedAt!.getTime()).toBe(stored!.record.createdAt.getTime());
  });

  it('announces every end of an execution with its committed record, exactly once, by id alone when large', async () => {
    const version = (await skills.findVersion('alpha', '1.0.0'))!;
    const heard: string[] = [];
    const listener = new PgListener(db.url);
    await listener.listen(EXECUTION_FINISHED_CHANNEL, (payload) => heard.push(payload));
    try {
      const newExecution = async () =>
        (
          await executions.create({
            skillVersionId: version.id,
            skillName: 'alpha',
            version: '1.0.0',
            purpose: 'call',
            input: {},
            maxAttempts: 1,
            warnings: [],
            sessionId: null,
            caller: 'bot',
            idempotencyKey: null,
            requestHash: null,
          })
        ).record;
      const small = await newExecution();
      const large = await newExecution();
      await executions.startAttempt(small.id);
      const finished = (await executions.finish(small.id, 'SUCCEEDED', { output: { y: 2 } }))!;
      await executions.finish(small.id, 'FAILED', { error: { code: 'HANDLER_ERROR', message: 'late', details: {} } }); // refused: no announcement
      await executions.finish(large.id, 'SUCCEEDED', { output: { text: 'x'.repeat(FINISHED_PAYLOAD_MAX_BYTES) } });
      const deadline = Date.now() + 5000;
      while (heard.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 100)); // nothing more arrives
      expect(heard).toHaveLength(2);
      const [first, second] = heard.map((payload) => decodeFinished(payload));
      // The announced record is the committed row, dates included.
      expect(first).toEqual({ id: small.id, execution: finished });
      expect(first!.execution!.finishedAt).toBeInstanceOf(Date);
      expect(second).toEqual({ id: large.id, execution: null });
      // The id of a row as Postgres writes it is read without decoding the row; the id-only form is decoded.
      expect(heard.map((payload) => announcedExecutionId(payload))).toEqual([small.id, null]);
    } finally {
      await listener.stop();
    }
  });

  it('serves every channel of a process on one connection, and after a kill listens on all of them again', async () => {
    const heard: string[] = [];
    const reconnects: string[] = [];
    const listener = new PgListener(db.url);
    const backends = async () =>
      (
        await pool.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN test_shared_%'`,
        )
      ).rows;
    await Promise.all(
      ['test_shared_one', 'test_shared_two'].map((channel) =>
        listener.listen(
          channel,
          (payload) => heard.push(`${channel}:${payload}`),
          () => reconnects.push(channel),
        ),
      ),
    );
    try {
      await expect(listener.listen('test_shared_one', () => undefined)).rejects.toThrow(/already listening/);
      expect(await backends()).toHaveLength(1);
      await pool.query(`SELECT pg_notify('test_shared_one', 'a'), pg_notify('test_shared_two', 'b')`);
      await eventually(async () => heard.length === 2, 5000);
      expect(heard.sort()).toEqual(['test_shared_one:a', 'test_shared_two:b']);

      await pool.query(`SELECT pg_terminate_backend($1)`, [(await backends())[0]!.pid]);
      await eventually(async () => reconnects.length === 2, 10_000);
      expect(reconnects.sort()).toEqual(['test_shared_one', 'test_shared_two']);
      await pool.query(`SELECT pg_notify('test_shared_one', 'c'), pg_notify('test_shared_two', 'd')`);
      await eventually(async () => heard.length === 4, 5000);
      expect(heard.slice(2).sort()).toEqual(['test_shared_one:c', 'test_shared_two:d']);
      expect(await backends()).toHaveLength(1);
    } finally {
      await listener.stop();
    }
  });

  it('listens again after its connection is killed, and reports it so its owner re-reads what it missed', async () => {
    const channel = 'test_listener_reconnect';
    const heard: string[] = [];
    let reconnects = 0;
    const listener = new PgListener(db.url);
    await listener.listen(
      channel,
      (payload) => heard.push(payload),
      () => reconnects++,
    );
    try {
      const killed = await pool.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = $1`,
        [`LISTEN ${channel}`],
      );
      expect(killed.rowCount).toBe(1);
      await eventually(async () => reconnects === 1, 10_000);
      await pool.query(`SELECT pg_notify($1, 'after the reconnect')`, [channel]);
      await eventually(async () => heard.includes('after the reconnect'), 5000);
    } finally {
      await listener.stop();
    }
  });
});
