import { Client, LOG_LEVEL_META_KEY, ProtocolError, StreamableHTTPClientTransport, type LoggingLevel } from '@modelcontextprotocol/client';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, EXECUTION_SKILLS_ROOT, obliterateQueue, readSse } from '../support/executions.js';
import { AGENT_TOKEN, startRegistry, type RunningRegistry } from '../support/registry.js';
import { MAX_LOG_EVENTS_PER_EXECUTION, MAX_LOG_FIELDS_BYTES, MAX_LOG_MESSAGE_CHARS } from '#executions/index.js';

interface LogNotification {
  level: LoggingLevel;
  logger?: string;
  data: { message: string; fields?: Record<string, unknown>; truncated?: boolean; at: string };
}

/** The four lines test_tool_with_logging (test/fixtures/execution-skills) logs before anything else (a SkillLogger's `warn` is MCP's `warning`). */
const LEVEL_LINES = [
  { level: 'debug', message: 'debug line', n: 1 },
  { level: 'info', message: 'info line', n: 2 },
  { level: 'warning', message: 'warn line', n: 3 },
  { level: 'error', message: 'error line', n: 4 },
];

describe('MCP logging: a skill’s log lines reach the client as notifications/message at the level it set', () => {
  let db: TestDatabase;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  const clients: Client[] = [];
  const queuePrefix = `test-mcp-logging-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase('mcp_logging');
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [EXECUTION_SKILLS_ROOT], queuePrefix, agentTokens: true });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    await activate(registry.baseUrl, ['test_tool_with_logging']);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
  });

  /** An SDK client that records every log notification it receives. */
  async function connect(options: ConstructorParameters<typeof Client>[1] = {}) {
    const client = new Client({ name: 'mcp-logging-e2e', version: '1.0.0' }, options);
    const logs: LogNotification[] = [];
    client.setNotificationHandler('notifications/message', (notification) => void logs.push(notification.params as LogNotification));
    const transport = new StreamableHTTPClientTransport(new URL(`${registry.baseUrl}/mcp`), {
      authProvider: { token: async () => AGENT_TOKEN },
    });
    await client.connect(transport);
    clients.push(client);
    return { client, logs };
  }

  const loggingCall = (args: { extra_lines?: number; oversized?: boolean } = {}, meta?: Record<string, unknown>) => ({
    name: 'test_tool_with_logging',
    arguments: args,
    ...(meta ? { _meta: meta } : {}),
  });
  const summary = (logs: LogNotification[]) =>
    logs.map(({ level, logger, data }) => ({ level, logger, message: data.message, n: data.fields?.n }));
  const expected = (levels: string[]) =>
    LEVEL_LINES.filter((line) => levels.includes(line.level)).map(({ level, message, n }) => ({
      level,
      logger: 'test_tool_with_logging',
      message,
      n,
    }));

  it('declares the logging capability', async () => {
    const { client } = await connect();
    expect(client.getServerCapabilities()?.logging).toEqual({});
  });

  it('after logging/setLevel warning, only the warning and error lines arrive, before the result, with their fields', async () => {
    const { client, logs } = await connect();
    expect(await client.setLoggingLevel('warning')).toEqual({});
    const result = await client.callTool(loggingCall());
    expect(result.structuredContent).toEqual({ logged: 4 });
    expect(summary(logs)).toEqual(expected(['warning', 'error']));
    expect(logs[0]?.data.fields).toMatchObject({ step: 'levels', n: 3 });
    expect(Date.parse(logs[0]?.data.at ?? '')).not.toBeNaN();
  });

  it('sends every level (debug up) to a session that never set one: the documented default', async () => {
    const { client, logs } = await connect();
    await client.callTool(loggingCall());
    expect(summary(logs)).toEqual(expected(['debug', 'info', 'warning', 'error']));
  });

  it('keeps the level per session', async () => {
    const strict = await connect();
    const verbose = await connect();
    await strict.client.setLoggingLevel('error');
    await verbose.client.setLoggingLevel('info');
    await Promise.all([strict.client.callTool(loggingCall()), verbose.client.callTool(loggingCall())]);
    expect(summary(strict.logs)).toEqual(expected(['error']));
    expect(summary(verbose.logs)).toEqual(expected(['info', 'warning', 'error']));
  });

  it('answers an unknown or missing level with JSON-RPC -32602 (not -32603), and keeps the level it had', async () => {
    const { client, logs } = await connect();
    await client.setLoggingLevel('error');
    for (const params of [{ level: 'loud' }, { level: 3 }, {}]) {
      const error = await client
        .request({ method: 'logging/setLevel', params: params as { level: LoggingLevel } })
        .catch((caught: unknown) => caught);
      expect({ params, error }).toEqual({ params, error: expect.any(ProtocolError) });
      expect({ params, code: (error as ProtocolError).code }).toEqual({ params, code: -32602 });
    }
    await client.callTool(loggingCall());
    expect(summary(logs)).toEqual(expected(['error']));
  });

  it('serves a 2026-07-28 request the levels at or above the logLevel of its _meta, and none without one', async () => {
    const { client, logs } = await connect({ versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.callTool(loggingCall());
    expect(logs).toEqual([]);
    const result = await client.callTool(loggingCall({}, { [LOG_LEVEL_META_KEY]: 'warning' }));
    expect(result.structuredContent).toEqual({ logged: 4 });
    expect(summary(logs)).toEqual(expected(['warning', 'error']));
  });

  it('bounds a chatty skill: at most MAX_LOG_EVENTS_PER_EXECUTION lines per execution, then one notice; SSE shows the same', async () => {
    const { client, logs } = await connect();
    await client.setLoggingLevel('debug');
    const result = await client.callTool(loggingCall({ extra_lines: 1000 }));
    expect(result.structuredContent).toEqual({ logged: 1004 });
    expect(logs).toHaveLength(MAX_LOG_EVENTS_PER_EXECUTION + 1);
    expect(logs.at(-2)?.data.message).toBe(`extra line ${MAX_LOG_EVENTS_PER_EXECUTION - LEVEL_LINES.length - 1}`);
    expect(logs.at(-1)).toMatchObject({ level: 'warning', data: { message: expect.stringMatching(/^Log limit reached/) } });

    const id = (result._meta as Record<string, any>)['skill-registry/execution'].id;
    const events = await readSse(registry.baseUrl, id, { authorization: `Bearer ${AGENT_TOKEN}` });
    const types = events.map((event) => event.type);
    expect(types.slice(0, 2)).toEqual(['queued', 'started']);
    expect(types.slice(2, -1)).toEqual(Array(MAX_LOG_EVENTS_PER_EXECUTION + 1).fill('log'));
    expect(types.at(-1)).toBe('succeeded');
    expect(events[2]?.data).toMatchObject({ type: 'log', level: 'debug', message: 'debug line', fields: { step: 'levels', n: 1 } });
  });

  it('cuts an oversized message and leaves out oversized fields, saying so', async () => {
    const { client, logs } = await connect();
    await client.setLoggingLevel('warning');
    await client.callTool(loggingCall({ oversized: true }));
    const oversized = logs.at(-1);
    expect(oversized?.data.message).toHaveLength(MAX_LOG_MESSAGE_CHARS);
    expect(oversized?.data.message.endsWith('…')).toBe(true);
    expect(oversized?.data.fields).toBeUndefined();
    expect(oversized?.data.truncated).toBe(true);
    expect(MAX_LOG_FIELDS_BYTES).toBeLessThan(10_000);
  });
});
