import { status } from '@grpc/grpc-js';
import type pg from 'pg';
import { connect, createTestDatabase, type TestDatabase } from '../support/database.js';
import { activate, eventually, EXECUTION_SKILLS_ROOT, obliterateQueue } from '../support/executions.js';
import { bearer, failure, grpcPort, registryClient, struct, unary, type RegistryClient } from '../support/grpc.js';
import { call, startRegistry, type RunningRegistry } from '../support/registry.js';

/**
 * A waiting call's create (`?wait=`, gRPC `wait_seconds`) is committed without waiting for the disk
 * (ExecuteSkill, BatchedExecutionWrites.createAwaited): the flushed finish it waits for makes it durable. An
 * answer given before that end (the wait ran out) must name only an execution that is on disk. No executor
 * runs here, so every wait runs out; deleting the row stands for a database crash that lost the unflushed insert.
 */
describe('the create of a waiting call', () => {
  let db: TestDatabase;
  let sql: pg.Client;
  let registry: RunningRegistry;
  let grpcClient: RegistryClient;
  const queuePrefix = `test-awaited-${process.pid}-${Date.now()}`;

  /**
   * Deletes the execution whose input carries `marker` as soon as it is visible (well within the calls' 5 s
   * waits, also on a loaded machine); resolves with its id.
   */
  const loseWhenCreated = async (marker: string): Promise<string> => {
    let id: string | undefined;
    await eventually(async () => {
      const found = await sql.query(`SELECT id FROM executions WHERE input->>'marker' = $1`, [marker]);
      id = found.rows[0]?.id;
      return id !== undefined;
    }, 5_000);
    await sql.query('DELETE FROM executions WHERE id = $1', [id]);
    return id as string;
  };

  beforeAll(async () => {
    db = await createTestDatabase('awaited');
    sql = await connect(db.url);
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [EXECUTION_SKILLS_ROOT], queuePrefix });
    await activate(registry.baseUrl, ['quick_noop']);
    grpcClient = registryClient(grpcPort(registry));
  });

  afterAll(async () => {
    grpcClient?.close();
    await sql?.end();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
  });

  it('a wait that runs out answers 202 with the execution as stored', async () => {
    const { status: code, body } = await call(registry.baseUrl, 'POST', '/v1/skills/quick_noop/executions?wait=1', {
      body: { input: { marker: 'kept' } },
    });
    expect(code).toBe(202);
    expect(body).toMatchObject({ status: 'QUEUED', input: { marker: 'kept' } });
    const stored = await call(registry.baseUrl, 'GET', `/v1/executions/${body.id}`);
    expect(stored).toMatchObject({ status: 200, body: { id: body.id, status: 'QUEUED' } });
  });

  it('an execution lost before it reached the disk is answered 503 with its id, not 202 as if it were stored', async () => {
    const answer = call(registry.baseUrl, 'POST', '/v1/skills/quick_noop/executions?wait=5', { body: { input: { marker: 'lost-rest' } } });
    const id = await loseWhenCreated('lost-rest');
    const { status: code, body, headers } = await answer;
    expect(code).toBe(503);
    expect(headers.get('content-type')).toContain('application/problem+json');
    expect(body).toMatchObject({ code: 'DATABASE_UNAVAILABLE', id });
    expect(body.detail).toContain('send the request again');
    expect((await call(registry.baseUrl, 'GET', `/v1/executions/${id}`)).status).toBe(404);
  });

  it('the same over gRPC: UNAVAILABLE with the code, and a replay of its idempotency key creates it anew', async () => {
    const execute = (marker: string) =>
      unary(
        grpcClient,
        'ExecuteSkill',
        { name: 'quick_noop', input: struct({ marker }), wait_seconds: 5, idempotency_key: `key-${marker}` },
        bearer(),
      );
    const answer = failure(execute('lost-grpc'));
    const id = await loseWhenCreated('lost-grpc');
    expect(await answer).toMatchObject({ code: status.UNAVAILABLE, errorCode: 'DATABASE_UNAVAILABLE' });
    const again = await execute('lost-grpc');
    expect(again.response.execution).toMatchObject({ status: 'QUEUED' });
    expect(again.response.execution.id).not.toBe(id);
  });
});
