import path from 'node:path';
import { rm } from 'node:fs/promises';
import { status } from '@grpc/grpc-js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, EXECUTION_SKILLS_ROOT, markerDir, obliterateQueue, readSse } from '../support/executions.js';
import {
  bearer,
  collect,
  failure,
  grpcPort,
  registryClient,
  restShape,
  struct,
  unary,
  withoutNulls,
  type RegistryClient,
} from '../support/grpc.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('gRPC: executions (registry in process, executor as a process)', () => {
  let db: TestDatabase;
  let markers: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  let client: RegistryClient;
  const queuePrefix = `test-grpc-exec-${process.pid}-${Date.now()}`;
  const marker = (name: string) => path.join(markers, name);
  const rpc = (method: string, request: object = {}) => unary(client, method, request, bearer());
  const rest = (p: string) => call(registry.baseUrl, 'GET', p);
  const execute = (name: string, input: Record<string, unknown>, extra: object = {}) =>
    rpc('ExecuteSkill', { name, input: struct(input), ...extra });

  beforeAll(async () => {
    db = await createTestDatabase('grpc_exec');
    markers = await markerDir();
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [EXECUTION_SKILLS_ROOT], queuePrefix });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    await activate(registry.baseUrl, ['quick_noop', 'sleepy']);
    client = registryClient(grpcPort(registry));
  });

  afterAll(async () => {
    client?.close();
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(markers, { recursive: true, force: true });
  });

  it('ExecuteSkill waits for the result and returns what GET /v1/executions/{id} returns; GetExecution agrees', async () => {
    const { response, trailers } = await execute('quick_noop', { marker: 'grpc' }, { wait_seconds: 10, session_id: 's-grpc' });
    expect(response.created).toBe(true);
    expect(response.deprecation).toBeNull();
    expect(trailers.get('deprecation')).toEqual([]);
    const execution = response.execution;
    expect(execution).toMatchObject({
      skill: 'quick_noop',
      version: '1.0.0',
      status: 'SUCCEEDED',
      attempts: 1,
      caller: 'anonymous',
      session_id: 's-grpc',
      purpose: 'call',
    });
    expect(restShape(execution.input)).toEqual({ marker: 'grpc' });
    expect(restShape(execution.output)).toEqual({ attempt: 4 });
    const { body } = await rest(`/v1/executions/${execution.id}`);
    expect(withoutNulls(restShape(execution))).toEqual(withoutNulls(body));
    const got = await rpc('GetExecution', { id: execution.id });
    expect(withoutNulls(restShape(got.response))).toEqual(withoutNulls(body));
  });

  it('ExecuteSkill without a wait answers at once with the queued execution', async () => {
    const { response } = await execute('sleepy', { marker: marker('queued'), ms: 200, ignore_signal: false });
    expect(response.execution.status).toBe('QUEUED');
    expect(response.execution.finished_at).toBeNull();
  });

  it('refuses bad input with INVALID_ARGUMENT listing every schema violation, creating nothing', async () => {
    const before = (await rpc('ListExecutions', { skill: 'sleepy', limit: 100 })).response.items.length;
    const error = await failure(execute('sleepy', { marker: 7, ms: -1, extra: true }));
    expect(error).toMatchObject({ code: status.INVALID_ARGUMENT, errorCode: 'INPUT_INVALID' });
    expect(error.status?.fieldViolations.map((violation) => violation.field)).toEqual(expect.arrayContaining(['/marker', '/ms', '/']));
    expect(error.details).toContain('/marker');
    expect((await rpc('ListExecutions', { skill: 'sleepy', limit: 100 })).response.items.length).toBe(before);

    const wait = await failure(execute('sleepy', {}, { wait_seconds: 999 }));
    expect(wait).toMatchObject({ code: status.INVALID_ARGUMENT, errorCode: 'VALIDATION_FAILED' });
    expect(wait.status?.fieldViolations.map((violation) => violation.field)).toEqual(['wait_seconds']);
    const version = await failure(execute('sleepy', {}, { version: 'latest' }));
    expect(version.status?.fieldViolations.map((violation) => violation.field)).toEqual(['version']);
    const key = await failure(execute('sleepy', {}, { idempotency_key: 'has spaces' }));
    expect(key.status?.fieldViolations.map((violation) => violation.field)).toEqual(['idempotency_key']);
  });

  it('answers NOT_FOUND for unknown skills, versions and executions, FAILED_PRECONDITION for a REGISTERED skill', async () => {
    expect(await failure(execute('no_such_skill', {}))).toMatchObject({ code: status.NOT_FOUND, errorCode: 'SKILL_NOT_FOUND' });
    expect(await failure(execute('quick_noop', { marker: 'x' }, { version: '9.9.9' }))).toMatchObject({ code: status.NOT_FOUND });
    const registered = await failure(execute('wrong_example', { marker: 'x' }));
    expect(registered).toMatchObject({ code: status.FAILED_PRECONDITION, errorCode: 'SKILL_NOT_EXECUTABLE' });
    expect(registered.details).toContain('not been promoted');
    expect(registered.status?.errorInfo?.metadata).toMatchObject({ name: 'wrong_example', current_status: 'REGISTERED' });
    for (const method of ['GetExecution', 'CancelExecution', 'WatchExecution']) {
      for (const id of [UNKNOWN_ID, 'not-a-uuid']) {
        const answer = method === 'WatchExecution' ? collect(client.WatchExecution({ id }, bearer())) : rpc(method, { id });
        expect(await failure(answer)).toMatchObject({ code: status.NOT_FOUND, errorCode: 'EXECUTION_NOT_FOUND' });
      }
    }
  });

  it('returns the same execution for the same idempotency key and request, ALREADY_EXISTS for another request', async () => {
    const idempotency_key = `grpc-key-${Date.now()}`;
    const first = await execute('quick_noop', { marker: 'idem' }, { idempotency_key, wait_seconds: 10 });
    const second = await execute('quick_noop', { marker: 'idem' }, { idempotency_key, wait_seconds: 10 });
    expect(second.response.execution.id).toBe(first.response.execution.id);
    expect(second.response).toMatchObject({ created: false, execution: { status: 'SUCCEEDED' } });
    const other = await failure(execute('quick_noop', { marker: 'different' }, { idempotency_key }));
    expect(other).toMatchObject({ code: status.ALREADY_EXISTS, errorCode: 'IDEMPOTENCY_KEY_REUSED' });
    expect(other.status?.errorInfo?.metadata.execution_id).toBe(first.response.execution.id);
  });

  it('WatchExecution streams the same events as the SSE stream (queued, started, succeeded) and ends', async () => {
    const { response } = await execute('sleepy', { marker: marker('watch'), ms: 300, ignore_signal: false });
    const events = await collect(client.WatchExecution({ id: response.execution.id }, bearer()));
    expect(events.map((event) => event.type)).toEqual(['queued', 'started', 'succeeded']);
    const sse = await readSse(registry.baseUrl, response.execution.id);
    expect(events.map((event) => event.id)).toEqual(sse.map((event) => event.id));
    expect(events.map((event) => restShape(event.data))).toEqual(sse.map((event) => event.data));
    expect(events.map((event) => restShape(event.at))).toEqual(sse.map((event) => event.data.at));
    // Replaying after the end gives the same history; last_event_id resumes after an event.
    const replay = await collect(client.WatchExecution({ id: response.execution.id }, bearer()));
    expect(replay.map((event) => event.id)).toEqual(events.map((event) => event.id));
    const resumed = await collect(client.WatchExecution({ id: response.execution.id, last_event_id: events[0].id }, bearer()));
    expect(resumed.map((event) => event.type)).toEqual(['started', 'succeeded']);
    // A last_event_id no stream id can be (past 64 bits) is no position: the history from the start, not INTERNAL.
    const beyond = await collect(client.WatchExecution({ id: response.execution.id, last_event_id: '18446744073709551616-0' }, bearer()));
    expect(beyond.map((event) => event.type)).toEqual(['queued', 'started', 'succeeded']);
  });

  it('CancelExecution cancels a running execution, then refuses with FAILED_PRECONDITION; the stream ends with cancelled', async () => {
    const { response } = await execute('sleepy', { marker: marker('cancel'), ms: 20_000, ignore_signal: false });
    const id = response.execution.id;
    const watching = collect(client.WatchExecution({ id }, bearer()));
    const deadline = Date.now() + 10_000;
    while ((await rpc('GetExecution', { id })).response.status !== 'RUNNING') {
      if (Date.now() > deadline) throw new Error('never started');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const cancelled = await rpc('CancelExecution', { id });
    expect(cancelled.response.cancel_requested_at).not.toBeNull();
    const events = await watching;
    expect(events.map((event) => event.type)).toEqual(['queued', 'started', 'cancelled']);
    expect((await rpc('GetExecution', { id })).response).toMatchObject({ status: 'CANCELLED', error: { code: 'CANCELLED' } });
    const again = await failure(rpc('CancelExecution', { id }));
    expect(again).toMatchObject({ code: status.FAILED_PRECONDITION, errorCode: 'EXECUTION_FINISHED' });
    expect(again.status?.preconditionViolations).toEqual([{ type: 'EXECUTION_FINISHED', subject: id, description: again.details }]);
  });

  it('ListExecutions filters and pages like GET /v1/executions', async () => {
    const page1 = await rpc('ListExecutions', { skill: 'sleepy', limit: 2 });
    expect(page1.response.items).toHaveLength(2);
    expect(page1.response.items.every((execution: { skill: string }) => execution.skill === 'sleepy')).toBe(true);
    const restPage1 = (await rest('/v1/executions?skill=sleepy&limit=2')).body;
    expect(withoutNulls(restShape(page1.response.items))).toEqual(withoutNulls(restPage1.items));
    expect(page1.response.next_cursor).toBe(restPage1.next_cursor);
    const page2 = await rpc('ListExecutions', { skill: 'sleepy', limit: 2, cursor: page1.response.next_cursor });
    expect(page2.response.items.length).toBeGreaterThan(0);
    const ids = [...page1.response.items, ...page2.response.items].map((execution: { id: string }) => execution.id);
    expect(new Set(ids).size).toBe(ids.length);
    const bySession = await rpc('ListExecutions', { session_id: 's-grpc' });
    expect(bySession.response.items.map((execution: { session_id: string }) => execution.session_id)).toEqual(['s-grpc']);
    const cancelled = await rpc('ListExecutions', { status: 'CANCELLED' });
    expect(cancelled.response.items.length).toBeGreaterThan(0);
    expect(cancelled.response.items.every((execution: { status: string }) => execution.status === 'CANCELLED')).toBe(true);
    expect(await failure(rpc('ListExecutions', { cursor: 'bm90LWEtY3Vyc29y' }))).toMatchObject({
      code: status.INVALID_ARGUMENT,
      errorCode: 'INVALID_CURSOR',
    });
  });

  it('carries the deprecation of an executed version in the response and the trailers; GetUsage counts the calls', async () => {
    await call(registry.baseUrl, 'POST', '/v1/admin/skills/quick_noop/deprecate', {
      token: ADMIN_TOKEN,
      body: { reason: 'use sleepy', successor: 'sleepy' },
    });
    const { response, trailers } = await execute('quick_noop', { marker: 'dep' }, { wait_seconds: 10 });
    expect(response.execution.status).toBe('SUCCEEDED');
    expect(response.execution.warnings[0]).toContain('deprecated: use sleepy');
    expect(response.deprecation).toMatchObject({ reason: 'use sleepy', successor: 'sleepy' });
    expect(trailers.get('deprecation')[0]).toMatch(/^@\d+$/);
    expect(trailers.get('link')).toEqual(['</v1/skills/sleepy>; rel="successor-version"']);
    const got = await rpc('GetExecution', { id: response.execution.id });
    expect(got.trailers.get('deprecation')).toEqual(trailers.get('deprecation'));

    const usage = await rpc('GetUsage', { name: 'quick_noop' });
    expect(withoutNulls(restShape(usage.response))).toEqual(withoutNulls((await rest('/v1/skills/quick_noop/usage')).body));
    const v1 = usage.response.versions.find((version: { version: string }) => version.version === '1.0.0');
    expect(v1.status).toBe('DEPRECATED');
    expect(v1.windows['7d']).toEqual({ executions: 3, callers: 1, sessions: 1 });
    expect(restShape(v1.last_called_at)).toEqual(expect.any(String));
  });
});
