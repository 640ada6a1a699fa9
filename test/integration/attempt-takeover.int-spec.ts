import pg from 'pg';
import { ExecutionsRepository, type ExecutionError, type ExecutionRecord } from '#executions/index.js';
import { PgListener, createPgPool, createPrismaClient, type PrismaClient } from '#database/index.js';
import { SkillsRepository } from '../../apps/registry/src/catalog/skills.repository.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const LOST: ExecutionError = { code: 'WORKER_LOST', message: 'lost', details: {} };
const STALE_MS = 2000;

/**
 * The race between a slow live worker and the takeover of its attempt, decided in the database:
 * whichever write lands first wins, and the loser changes nothing.
 */
describe('takeover of lost attempts (guarded by attempt and heartbeat)', () => {
  let db: TestDatabase;
  let prisma: PrismaClient;
  let pool: pg.Pool;
  let executions: ExecutionsRepository;
  let versionId: string;

  beforeAll(async () => {
    db = await createTestDatabase('takeover');
    prisma = createPrismaClient(createPgPool(db.url, 2));
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    const skills = new SkillsRepository(prisma, pool, new PgListener(db.url));
    const created = await skills.createVersion(
      {
        name: 'alpha',
        version: '1.0.0',
        versionKey: [1, 0, 0, ''],
        domain: 'demo',
        agent: 'demo',
        description: 'A skill for takeover tests.',
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
    executions = new ExecutionsRepository(pool);
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    await pool?.end();
    await db?.drop();
  });

  async function runningExecution(): Promise<ExecutionRecord> {
    const { record } = await executions.create({
      skillVersionId: versionId,
      skillName: 'alpha',
      version: '1.0.0',
      purpose: 'call',
      input: {},
      maxAttempts: 3,
      warnings: [],
      sessionId: null,
      caller: 'bot',
      idempotencyKey: null,
      requestHash: null,
    });
    return (await executions.startAttempt(record.id))!;
  }

  const ageHeartbeat = (id: string, ms: number) =>
    pool.query(`UPDATE executions SET heartbeat_at = now() - ($2::int * interval '1 millisecond') WHERE id = $1`, [id, ms]);

  it('does not take over an attempt whose heartbeat is fresh, and lists only stale ones', async () => {
    const live = await runningExecution();
    const dead = await runningExecution();
    await ageHeartbeat(dead.id, STALE_MS * 2);
    const stale = (await executions.findStale(STALE_MS)).map((entry) => entry.execution.id);
    expect(stale).toContain(dead.id);
    expect(stale).not.toContain(live.id);
    expect(await executions.finish(live.id, 'FAILED', { error: LOST }, { attempt: 1, staleForMs: STALE_MS })).toBeNull();
    expect(await executions.releaseLostAttempt(live.id, LOST, { attempt: 1, staleForMs: STALE_MS })).toBeNull();
    expect(await executions.findById(live.id)).toMatchObject({ status: 'RUNNING', attemptRunning: true, attempts: 1 });
  });

  it('a heartbeat that lands before the takeover keeps the attempt with its worker', async () => {
    const slow = await runningExecution();
    await ageHeartbeat(slow.id, STALE_MS * 2);
    expect(await executions.heartbeat([{ id: slow.id, attempt: 1 }])).toEqual([]);
    expect(await executions.finish(slow.id, 'FAILED', { error: LOST }, { attempt: 1, staleForMs: STALE_MS })).toBeNull();
    expect(await executions.finish(slow.id, 'SUCCEEDED', { output: { ok: true } }, { attempt: 1 })).toMatchObject({ status: 'SUCCEEDED' });
  });

  it('after a takeover of a non-idempotent attempt, the slow worker can neither finish it nor keep it alive', async () => {
    const slow = await runningExecution();
    await ageHeartbeat(slow.id, STALE_MS * 2);
    expect(await executions.finish(slow.id, 'FAILED', { error: LOST }, { attempt: 1, staleForMs: STALE_MS })).toMatchObject({
      status: 'FAILED',
      error: { code: 'WORKER_LOST' },
    });
    // The worker was only slow: its late heartbeat learns the attempt is gone, its result is refused.
    expect(await executions.heartbeat([{ id: slow.id, attempt: 1 }])).toEqual([slow.id]);
    expect(await executions.finish(slow.id, 'SUCCEEDED', { output: { late: true } }, { attempt: 1 })).toBeNull();
    expect(await executions.startAttempt(slow.id)).toBeNull();
    expect(await executions.findById(slow.id)).toMatchObject({ status: 'FAILED', output: null, attempts: 1 });
  });

  it('after a takeover of an idempotent attempt, the old worker cannot touch the next attempt', async () => {
    const slow = await runningExecution();
    await ageHeartbeat(slow.id, STALE_MS * 2);
    expect(await executions.releaseLostAttempt(slow.id, LOST, { attempt: 1, staleForMs: STALE_MS })).toMatchObject({
      status: 'QUEUED',
      attemptRunning: false,
    });
    const next = (await executions.startAttempt(slow.id))!;
    expect(next).toMatchObject({ attempts: 2, attemptRunning: true });
    expect(await executions.heartbeat([{ id: slow.id, attempt: 1 }])).toEqual([slow.id]);
    expect(await executions.endAttemptForRetry(slow.id, LOST, { attempt: 1 })).toBe(false);
    expect(await executions.finish(slow.id, 'CANCELLED', { error: LOST }, { attempt: 1 })).toBeNull();
    expect(await executions.findById(slow.id)).toMatchObject({ status: 'RUNNING', attemptRunning: true, attempts: 2 });
    expect(await executions.finish(slow.id, 'SUCCEEDED', { output: { attempt: 2 } }, { attempt: 2 })).toMatchObject({
      status: 'SUCCEEDED',
    });
  });

  it('two takeovers of one lost attempt: exactly one decides', async () => {
    const lost = await runningExecution();
    await ageHeartbeat(lost.id, STALE_MS * 2);
    const guard = { attempt: 1, staleForMs: STALE_MS };
    const decided = await Promise.all([
      executions.releaseLostAttempt(lost.id, LOST, guard),
      executions.releaseLostAttempt(lost.id, LOST, guard),
      executions.finish(lost.id, 'FAILED', { error: LOST }, guard),
    ]);
    expect(decided.filter(Boolean)).toHaveLength(1);
  });
});
