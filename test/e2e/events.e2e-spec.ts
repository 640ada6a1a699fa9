import { rm } from 'node:fs/promises';
import { status, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, obliterateQueue } from '../support/executions.js';
import { bearer, failure, grpcPort, registryClient, restShape, type RegistryClient } from '../support/grpc.js';
import { ADMIN_TOKEN, AGENT_TOKEN, PUBLISHER_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { type ReceivedEvent, openSse } from '../support/sse.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

/**
 * Seed 003 §7, one typed stream of every event with a subscription to all of them: GET /v1/events (SSE) and gRPC
 * WatchEvents over the real registry and executor, filtered by type, skill and session, resumable from an id.
 */
describe('the platform event stream (registry in process, executor as a process)', () => {
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  let client: RegistryClient;
  const queuePrefix = `test-events-${process.pid}-${Date.now()}`;
  const events = (query = '', headers: Record<string, string> = admin) => openSse(`${registry.baseUrl}/v1/events${query}`, headers);
  const execute = async (skill: string, sessionId: string) => {
    const { body } = await call(registry.baseUrl, 'POST', `/v1/skills/${skill}/executions?wait=30`, {
      token: AGENT_TOKEN,
      body: { input: { text: 'hello' }, session_id: sessionId },
    });
    expect(body.status).toBe('SUCCEEDED');
    return body.id as string;
  };
  const completed = (id: string) => (received: ReceivedEvent[]) =>
    received.some((event) => event.type === 'run.completed' && event.data.execution_id === id);

  beforeAll(async () => {
    db = await createTestDatabase('events');
    root = await tempRoot();
    await writeEchoSkill(root, { name: 'echo_text' });
    await writeEchoSkill(root, { name: 'acme_echo' });
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root], queuePrefix, agentTokens: true });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    await activate(registry.baseUrl, ['echo_text', 'acme_echo']);
    client = registryClient(grpcPort(registry));
  });

  afterAll(async () => {
    client?.close();
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  it("streams an execution's events live, typed as seed 003 names them, with its skill and session", async () => {
    const stream = await events('?skill=echo_text');
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const id = await execute('echo_text', 's-live');
      const received = (await stream.until(completed(id))).filter((event) => event.data.execution_id === id);
      expect(received.map((event) => event.type)).toEqual(['run.queued', 'run.started', 'run.completed']);
      expect(received[0]).toEqual({
        id: received[0]!.data.id,
        type: 'run.queued',
        data: {
          id: expect.stringMatching(/^\d+-\d+$/),
          type: 'run.queued',
          at: expect.any(String),
          execution_id: id,
          skill: 'echo_text',
          session_id: 's-live',
          data: { type: 'queued', at: expect.any(String), skill: 'echo_text', version: '1.0.0' },
        },
      });
      expect(received[2]!.data.data).toMatchObject({ type: 'succeeded', attempt: 1 });
    } finally {
      stream.close();
    }
  });

  it('filters by type (a family too) and session, and resumes after an id (Last-Event-ID or from)', async () => {
    const stream = await events('?type=run.completed,skill.*&session_id=s-two');
    const all = await events('?skill=echo_text');
    try {
      await execute('echo_text', 's-other');
      const id = await execute('echo_text', 's-two');
      const received = await stream.until(completed(id));
      expect(received.map((event) => [event.type, event.data.session_id])).toEqual([['run.completed', 's-two']]);

      const everything = (await all.until(completed(id))).filter((event) => event.data.execution_id === id);
      const [queued, started, done] = everything;
      for (const resumed of [
        await events(`?skill=echo_text&from=${queued!.id}`),
        await events('?skill=echo_text', { ...admin, 'last-event-id': queued!.id! }),
      ]) {
        try {
          const history = await resumed.until((got) => got.some((event) => event.id === done!.id));
          expect(history.slice(0, 2).map((event) => event.id)).toEqual([started!.id, done!.id]);
        } finally {
          resumed.close();
        }
      }
      // From the oldest kept: the lifecycle moves too.
      const lifecycle = await events('?type=skill.lifecycle&skill=echo_text&from=0');
      try {
        const moves = await lifecycle.until((got) => got.some((event) => event.data.data.to === 'ACTIVE'));
        expect(moves.map((event) => [event.data.data.from, event.data.data.to])).toEqual([
          [null, 'REGISTERED'],
          ['REGISTERED', 'ACTIVE'],
        ]);
        expect(moves[1]!.data).toMatchObject({ execution_id: null, skill: 'echo_text', data: { actor: 'root', forced: true } });
      } finally {
        lifecycle.close();
      }
    } finally {
      stream.close();
      all.close();
    }
  });

  it('is for an admin or a scoped token: a publisher sees only the skills its scopes cover; others are refused', async () => {
    expect((await events('', {})).status).toBe(401);
    expect((await events('', { authorization: `Bearer ${AGENT_TOKEN}` })).status).toBe(403);
    const bad = await call(registry.baseUrl, 'GET', '/v1/events?type=run.nope&from=yesterday', { token: ADMIN_TOKEN });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['from', 'type.0']);

    const publisher = await events('?from=0', { authorization: `Bearer ${PUBLISHER_TOKEN}` });
    try {
      await execute('echo_text', 's-scope');
      const id = await execute('acme_echo', 's-scope');
      const seen = await publisher.until(completed(id));
      expect(new Set(seen.map((event) => event.data.skill))).toEqual(new Set(['acme_echo']));
      expect(seen.map((event) => event.type)).toEqual(expect.arrayContaining(['skill.lifecycle', 'run.queued', 'run.completed']));
    } finally {
      publisher.close();
    }
  });

  it('gRPC WatchEvents sends its headers as soon as a live subscription is in place, before any event', async () => {
    const live = client.WatchEvents({ types: ['run.completed'], skill: 'echo_text' }, bearer(ADMIN_TOKEN)) as ClientReadableStream<any>;
    const seen: any[] = [];
    live.on('data', (event) => seen.push(event));
    live.on('error', (error: ServiceError) => {
      if (error.code !== status.CANCELLED) throw error;
    });
    try {
      // Without headers a client cannot tell an open subscription from a hung call (the fuzz drill read it as a hang).
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no headers within 5 s')), 5_000);
        live.once('metadata', () => resolve(clearTimeout(timer)));
      });
      expect(seen).toEqual([]);
      const id = await execute('echo_text', 's-grpc-live');
      const deadline = Date.now() + 30_000;
      while (!seen.some((event) => event.execution_id === id)) {
        if (Date.now() > deadline) throw new Error(`WatchEvents sent ${JSON.stringify(seen.map((event) => event.execution_id))}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      live.cancel();
    }
  });

  it('gRPC WatchEvents sends the same events as the SSE stream, filtered, and refuses agents and bad filters', async () => {
    const sse = await events('?skill=echo_text&type=run.*');
    const watched: any[] = [];
    // From the oldest kept (a live gRPC subscription cannot say when it is in place): this test's run is among them.
    const call = client.WatchEvents(
      { types: ['run.*'], skill: 'echo_text', from_id: '0' },
      bearer(ADMIN_TOKEN),
    ) as ClientReadableStream<any>;
    call.on('data', (event) => watched.push(event));
    call.on('error', (error: ServiceError) => {
      if (error.code !== status.CANCELLED) throw error;
    });
    try {
      const id = await execute('echo_text', 's-grpc');
      const fromSse = (await sse.until(completed(id))).filter((event) => event.data.execution_id === id);
      const deadline = Date.now() + 30_000;
      while (!watched.some((event) => event.type === 'run.completed' && event.execution_id === id)) {
        if (Date.now() > deadline) throw new Error(`WatchEvents sent ${JSON.stringify(watched.map((event) => event.type))}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const mine = watched.filter((event) => event.execution_id === id);
      expect(mine.map((event) => event.id)).toEqual(fromSse.map((event) => event.id));
      expect(mine.map((event) => event.type)).toEqual(['run.queued', 'run.started', 'run.completed']);
      expect(mine.map((event) => restShape(event.data))).toEqual(fromSse.map((event) => event.data.data));
      expect(mine[0]).toMatchObject({ skill: 'echo_text', session_id: 's-grpc', at: { seconds: expect.any(String) } });
    } finally {
      call.cancel();
      sse.close();
    }
    const agent = client.WatchEvents({}, bearer(AGENT_TOKEN)) as ClientReadableStream<any>;
    expect(await failure(new Promise((resolve, reject) => agent.on('error', reject).on('end', resolve)))).toMatchObject({
      code: status.PERMISSION_DENIED,
    });
    const badType = client.WatchEvents({ types: ['run.nope'] }, bearer(ADMIN_TOKEN)) as ClientReadableStream<any>;
    const refused = await failure(new Promise((resolve, reject) => badType.on('error', reject).on('end', resolve)));
    expect(refused).toMatchObject({ code: status.INVALID_ARGUMENT, errorCode: 'VALIDATION_FAILED' });
    expect(refused.status?.fieldViolations.map((violation) => violation.field)).toEqual(['types.0']);
  });
});
