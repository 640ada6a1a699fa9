import { rm } from 'node:fs/promises';
import { status } from '@grpc/grpc-js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, eventually, obliterateQueue } from '../support/executions.js';
import { bearer, collect, failure, grpcPort, registryClient, type RegistryClient } from '../support/grpc.js';
import { StreamReaders } from '../../apps/registry/src/executions/execution-infrastructure.js';
import { ADMIN_TOKEN, call, PUBLISHER_TOKEN, startRegistry, type RunningRegistry } from '../support/registry.js';
import { openSse, type OpenStream } from '../support/sse.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';
import { getFrom } from '../support/http-from.js';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

/**
 * Each event stream a registry follows holds a Redis connection of its own (a blocking read): a client that opened
 * thousands of streams took as many of Redis's 10,000 connections, shared by every process of the platform, and two
 * file descriptors each. At most EVENT_STREAMS_MAX are followed at once (here 3); past that a stream is refused.
 */
describe('event streams are bounded (registry in process; the executor only in the last test: the execution stays queued)', () => {
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor | undefined;
  let client: RegistryClient;
  let executionId: string;
  const queuePrefix = `test-stream-limits-${process.pid}-${Date.now()}`;
  const open: OpenStream[] = [];
  /** Blocking readers (Redis connections) the registry holds for streams now. */
  const readers = () => registry.app.get(StreamReaders, { strict: false }).count;

  beforeAll(async () => {
    db = await createTestDatabase('stream_limits');
    root = await tempRoot();
    await writeEchoSkill(root, { name: 'echo_text' });
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root], queuePrefix, env: { EVENT_STREAMS_MAX: '3' } });
    await activate(registry.baseUrl, ['echo_text']);
    client = registryClient(grpcPort(registry));
    const created = await call(registry.baseUrl, 'POST', '/v1/skills/echo_text/executions', {
      token: ADMIN_TOKEN,
      body: { input: { text: 'x' } },
    });
    expect(created.status).toBe(202);
    executionId = created.body.id as string;
  });

  afterAll(async () => {
    for (const stream of open) stream.close();
    client?.close();
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  const executionEvents = () => openSse(`${registry.baseUrl}/v1/executions/${executionId}/events`, admin);

  it('follows up to the bound, refuses the next stream on every transport with 503 / UNAVAILABLE, and serves other requests', async () => {
    expect(readers()).toBe(0);
    for (const stream of [await executionEvents(), await executionEvents(), await openSse(`${registry.baseUrl}/v1/events`, admin)]) {
      expect(stream.status).toBe(200);
      open.push(stream);
    }
    await open[0]?.until((events) => events.some((event) => event.type === 'queued'));
    expect(readers()).toBe(3);
    // Their blocking reads share a Redis connection (and reads that do not wait one more), not one each; both counts
    // are in the metrics.
    expect(registry.app.get(StreamReaders, { strict: false }).connections).toBeLessThanOrEqual(2);
    const metrics = await (await fetch(`${registry.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^skill_registry_event_streams\{[^}]*\} 3$/m);
    expect(metrics).toMatch(/^skill_registry_event_stream_redis_connections\{[^}]*\} [12]$/m);

    for (const path of [`/v1/executions/${executionId}/events`, '/v1/events']) {
      const refused = await fetch(`${registry.baseUrl}${path}`, { headers: { accept: 'text/event-stream', ...admin } });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await refused.json()).toMatchObject({ code: 'TOO_MANY_STREAMS', limit: 3 });
    }
    const watched = await failure(collect(client.WatchExecution({ id: executionId }, bearer())));
    expect(watched).toMatchObject({ code: status.UNAVAILABLE, errorCode: 'TOO_MANY_STREAMS' });
    expect(readers()).toBe(3);

    const read = await call(registry.baseUrl, 'GET', `/v1/executions/${executionId}`, { token: ADMIN_TOKEN });
    expect(read).toMatchObject({ status: 200, body: { status: 'QUEUED' } });
  });

  it('gives a stream back when its client leaves: a new one opens', async () => {
    open.shift()?.close();
    await eventually(async () => {
      const stream = await executionEvents();
      if (stream.status === 200) open.push(stream);
      return stream.status === 200;
    });
    expect(readers()).toBe(3);
  });

  // An MCP call's progress notifications follow its execution's stream: at the bound the call still runs, without them.
  it('runs an MCP tool call asked for progress at the bound, without progress notifications', async () => {
    for (const stream of open.splice(0)) stream.close();
    await eventually(async () => readers() === 0);
    for (let index = 0; index < 3; index++) open.push(await openSse(`${registry.baseUrl}/v1/events`, admin));
    expect(readers()).toBe(3);
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    const mcp = new Client({ name: 'stream-limits-e2e', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${registry.baseUrl}/mcp`), { authProvider: { token: async () => ADMIN_TOKEN } }),
    );
    try {
      const progress: unknown[] = [];
      const result = await mcp.callTool(
        { name: 'echo_text', arguments: { text: 'hello' } },
        { onprogress: (update) => void progress.push(update) },
      );
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ text: 'hello', length: 5 });
      expect(progress).toEqual([]);
      expect(readers()).toBe(3);
      // The same call with a stream free: its progress is followed.
      open.shift()?.close();
      await eventually(async () => readers() === 2);
      const followed: unknown[] = [];
      await mcp.callTool({ name: 'echo_text', arguments: { text: 'again' } }, { onprogress: (update) => void followed.push(update) });
      expect(followed.length).toBeGreaterThan(0);
    } finally {
      await mcp.close();
    }
  });
});

/**
 * Within that bound each caller (a token's identity; an anonymous client's address) follows at most
 * EVENT_STREAMS_PER_CALLER streams: before, one client that opened streams up to EVENT_STREAMS_MAX left none for anyone.
 */
describe("each caller's share of the event streams (EVENT_STREAMS_PER_CALLER)", () => {
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  let client: RegistryClient;
  let executionId: string;
  const queuePrefix = `test-stream-shares-${process.pid}-${Date.now()}`;
  const open: OpenStream[] = [];
  const closers: (() => void)[] = [];
  const readers = () => registry.app.get(StreamReaders, { strict: false }).count;

  beforeAll(async () => {
    db = await createTestDatabase('stream_shares');
    root = await tempRoot();
    await writeEchoSkill(root, { name: 'echo_text' });
    registry = await startRegistry({
      databaseUrl: db.url,
      skillPaths: [root],
      queuePrefix,
      env: { EVENT_STREAMS_MAX: '6', EVENT_STREAMS_PER_CALLER: '2' },
    });
    await activate(registry.baseUrl, ['echo_text']);
    client = registryClient(grpcPort(registry));
    const created = await call(registry.baseUrl, 'POST', '/v1/skills/echo_text/executions', {
      token: ADMIN_TOKEN,
      body: { input: { text: 'x' } },
    });
    expect(created.status).toBe(202);
    executionId = created.body.id as string;
  });

  afterAll(async () => {
    for (const stream of open) stream.close();
    for (const close of closers) close();
    client?.close();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  it('refuses a caller past its share (429 / RESOURCE_EXHAUSTED) while other callers still get streams', async () => {
    const executionPath = `/v1/executions/${executionId}/events`;
    for (const path of [executionPath, '/v1/events']) {
      const stream = await openSse(`${registry.baseUrl}${path}`, admin);
      expect(stream.status).toBe(200);
      open.push(stream);
    }
    expect(readers()).toBe(2);

    for (const path of [executionPath, '/v1/events']) {
      const refused = await fetch(`${registry.baseUrl}${path}`, { headers: { accept: 'text/event-stream', ...admin } });
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ code: 'TOO_MANY_STREAMS_FOR_CALLER', limit: 2 });
    }
    const watched = await failure(collect(client.WatchExecution({ id: executionId }, bearer(ADMIN_TOKEN))));
    expect(watched).toMatchObject({ code: status.RESOURCE_EXHAUSTED, errorCode: 'TOO_MANY_STREAMS_FOR_CALLER' });
    expect(readers()).toBe(2);

    // Another token, and anonymous clients, each within their own share: an anonymous client's is its address's.
    const publisher = await openSse(`${registry.baseUrl}/v1/events`, { authorization: `Bearer ${PUBLISHER_TOKEN}` });
    expect(publisher.status).toBe(200);
    open.push(publisher);
    for (let index = 0; index < 2; index++) {
      const anonymous = await openSse(`${registry.baseUrl}${executionPath}`, {});
      expect(anonymous.status).toBe(200);
      open.push(anonymous);
    }
    const anonymousOver = await fetch(`${registry.baseUrl}${executionPath}`, { headers: { accept: 'text/event-stream' } });
    expect(anonymousOver.status).toBe(429);
    // Without TRUST_PROXY no forwarded address is believed: it gets no share of its own.
    const forwarded = await getFrom(`${registry.baseUrl}${executionPath}`, '127.0.0.1', {
      accept: 'text/event-stream',
      'x-forwarded-for': '198.51.100.1',
    });
    expect(forwarded.status).toBe(429);
    // Another loopback address: another anonymous caller.
    const elsewhere = await getFrom(`${registry.baseUrl}${executionPath}`, '127.0.0.2', { accept: 'text/event-stream' });
    closers.push(elsewhere.close);
    expect(elsewhere.status).toBe(200);
    expect(readers()).toBe(6);

    // The caller whose stream ends may open another.
    open.shift()?.close();
    await eventually(async () => readers() === 5);
    const again = await openSse(`${registry.baseUrl}${executionPath}`, admin);
    expect(again.status).toBe(200);
    open.push(again);
  });
});
