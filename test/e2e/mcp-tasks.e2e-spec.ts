import { rm } from 'node:fs/promises';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { z } from 'zod';
import { connect as connectDb, createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, eventually, EXECUTION_SKILLS_ROOT, obliterateQueue } from '../support/executions.js';
import { modernRequest, TASKS_EXTENSION } from '../support/mcp-raw.js';
import { ADMIN_TOKEN, AGENT_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';

const OTHER_TOKEN = 'test-agent-token-other-0002';
const anyResult = z.looseObject({});

/**
 * MCP tasks (issue 26 §2) end to end: 2025-11-25 core tasks through the official MCP SDK v2 client and the
 * official MCP Tasks client (@modelcontextprotocol/ext-tasks), the 2026-07-28 tasks extension as raw
 * JSON-RPC. `long_napper` (timeout 300 s, so taskSupport optional) stands in for a long engineering run;
 * drills/mcp-task-calculix.mjs runs the real 2-minute CalculiX case.
 */
describe('MCP tasks: a long skill call as a task (2025-11-25 core tasks, 2026-07-28 extension)', () => {
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  const clients: Client[] = [];
  const queuePrefix = `test-mcp-tasks-${process.pid}-${Date.now()}`;
  const registryOptions = () => ({
    databaseUrl: db.url,
    skillPaths: [EXECUTION_SKILLS_ROOT, root],
    queuePrefix,
    agentTokens: true,
    env: { AGENT_TOKENS: `bot=${AGENT_TOKEN},other=${OTHER_TOKEN}` },
  });

  beforeAll(async () => {
    db = await createTestDatabase('mcp_tasks');
    root = await tempRoot();
    await writeEchoSkill(root, { name: 'task_only_echo', domain: 'demo', definition: { task_support: 'required' } });
    registry = await startRegistry(registryOptions());
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    await activate(registry.baseUrl, ['long_napper', 'quick_noop', 'task_only_echo']);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  async function connect(token = AGENT_TOKEN): Promise<Client> {
    const client = new Client({ name: 'mcp-tasks-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${registry.baseUrl}/mcp`), { authProvider: { token: async () => token } }),
    );
    clients.push(client);
    return client;
  }

  /** A task-augmented tools/call of 2025-11-25 through the SDK client's request(); the CreateTaskResult's task. */
  async function startTask(client: Client, name: string, args: Record<string, unknown>, ttl?: number) {
    const created = await client.request(
      { method: 'tools/call', params: { name, arguments: args, task: ttl === undefined ? {} : { ttl } } },
      anyResult,
    );
    return created.task as { taskId: string; status: string; ttl: number | null; pollInterval: number; createdAt: string };
  }
  /** The execution behind a task once it ended (the REST read, with the agent's token). */
  async function executionEnds(id: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
    let body: Record<string, unknown> = {};
    await eventually(async () => {
      body = (await call(registry.baseUrl, 'GET', `/v1/executions/${id}`, { token: AGENT_TOKEN })).body;
      return ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(body.status as string);
    }, timeoutMs);
    return body;
  }
  const getTask = (client: Client, taskId: string) => client.request({ method: 'tasks/get', params: { taskId } }, anyResult);
  const rpcError = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ProtocolError);
    return error as ProtocolError;
  };

  describe('2025-11-25 (sessions)', () => {
    it('declares tasks and each tool its taskSupport, from the skill or by the default rule', async () => {
      const client = await connect();
      expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
      const { tools } = await client.listTools();
      const support = Object.fromEntries(tools.map((tool) => [tool.name, tool.execution?.taskSupport]));
      expect(support).toMatchObject({ long_napper: 'optional', quick_noop: 'forbidden', task_only_echo: 'required' });
    });

    it('runs a long call as a task with the official MCP Tasks client, and tasks/get, tasks/list and tasks/result agree', async () => {
      const client = await connect();
      const statuses: unknown[] = [];
      client.setNotificationHandler(
        'notifications/tasks/status' as 'notifications/message',
        (notification) => void statuses.push(notification.params),
      );
      const session = createTaskSessionFromClient(client, { endpointId: 'mcp-tasks-e2e' });
      const execution = await session.callTool(
        'long_napper',
        { ms: 1500, log_first: false },
        { task: { preference: 'require', retentionMs: 600_000 } },
      );
      expect(execution.kind).toBe('task');
      const taskId = (execution as { handle: { taskId: string } }).handle.taskId;
      const { outcome } = await execution.settle();
      expect(outcome.status).toBe('completed');
      expect((resultFromTaskOutcome(outcome) as { structuredContent?: unknown }).structuredContent).toEqual({ slept_ms: 1500 });

      expect(await getTask(client, taskId)).toMatchObject({ taskId, status: 'completed', ttl: 600_000 });
      const result = await client.request({ method: 'tasks/result', params: { taskId } }, anyResult);
      expect(result).toMatchObject({
        structuredContent: { slept_ms: 1500 },
        _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
      });
      const listed = await client.request({ method: 'tasks/list', params: {} }, anyResult);
      expect((listed.tasks as { taskId: string }[]).map((task) => task.taskId)).toContain(taskId);
      // The task is the execution: same id, the caller its token's identity.
      const stored = await call(registry.baseUrl, 'GET', `/v1/executions/${taskId}`, { token: AGENT_TOKEN });
      expect(stored.body).toMatchObject({ status: 'SUCCEEDED', caller: 'bot', output: { slept_ms: 1500 } });
      await eventually(async () => statuses.some((status) => (status as { status: string }).status === 'completed'), 10_000);
      await session.close();
    });

    it('is stored before the CreateTaskResult is answered, and a tool error makes a failed task', async () => {
      const client = await connect();
      const task = await startTask(client, 'long_napper', { ms: 200, log_first: false, fail: true }, 60_000);
      expect(task).toMatchObject({ status: 'working', ttl: 60_000 });
      expect(task.pollInterval).toBeGreaterThanOrEqual(500);
      const pg = await connectDb(db.url);
      try {
        const { rows } = await pg.query('SELECT owner, ttl_ms FROM mcp_tasks WHERE task_id = $1', [task.taskId]);
        expect(rows).toEqual([{ owner: 'bot', ttl_ms: 60_000 }]);
      } finally {
        await pg.end();
      }
      await executionEnds(task.taskId);
      expect(await getTask(client, task.taskId)).toMatchObject({
        status: 'failed',
        statusMessage: expect.stringMatching(/^SKILL_EXECUTION_ERROR|^HANDLER_ERROR|: /),
      });
      const result = await client.request({ method: 'tasks/result', params: { taskId: task.taskId } }, anyResult);
      expect(result.isError).toBe(true);
    });

    it('cancels a task: cancelled at once, then its execution is cancelled; an ended task cannot be cancelled', async () => {
      const client = await connect();
      const task = await startTask(client, 'long_napper', { ms: 120_000, log_first: false });
      const cancelled = await client.request({ method: 'tasks/cancel', params: { taskId: task.taskId } }, anyResult);
      expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
      expect(await getTask(client, task.taskId)).toMatchObject({ status: 'cancelled' });
      const execution = await executionEnds(task.taskId, 30_000);
      expect(execution.status).toBe('CANCELLED');
      const again = await rpcError(client.request({ method: 'tasks/cancel', params: { taskId: task.taskId } }, anyResult));
      expect(again.code).toBe(-32602);
      expect(again.message).toMatch(/already in terminal status 'cancelled'/);
    });

    it('binds a task to the token that made it: another identity gets not-found for get, result and cancel, and does not list it', async () => {
      const owner = await connect();
      const task = await startTask(owner, 'long_napper', { ms: 100, log_first: false });
      const other = await connect(OTHER_TOKEN);
      for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
        const error = await rpcError(other.request({ method, params: { taskId: task.taskId } }, anyResult));
        expect([method, error.code, error.message]).toEqual([method, -32602, expect.stringContaining('Task not found')]);
      }
      const listed = await other.request({ method: 'tasks/list', params: {} }, anyResult);
      expect((listed.tasks as { taskId: string }[]).map((listedTask) => listedTask.taskId)).not.toContain(task.taskId);
      expect(await getTask(owner, task.taskId)).toMatchObject({ taskId: task.taskId });
    });

    it('answers "Task has expired" once the time to live has passed', async () => {
      const client = await connect();
      const task = await startTask(client, 'long_napper', { ms: 100, log_first: false }, 1000);
      expect(task.ttl).toBe(1000);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const error = await rpcError(getTask(client, task.taskId));
      expect([error.code, error.message]).toEqual([-32602, 'Failed to retrieve task: Task has expired']);
    });

    it('refuses a task for a tool that forbids one and a plain call of a tool that requires one, with -32601', async () => {
      const client = await connect();
      const forbidden = await rpcError(startTask(client, 'quick_noop', {}));
      expect([forbidden.code, forbidden.message]).toEqual([-32601, expect.stringContaining('forbidden')]);
      const required = await rpcError(client.callTool({ name: 'task_only_echo', arguments: { text: 'x' } }));
      expect([required.code, required.message]).toEqual([-32601, expect.stringContaining('must be called as a task')]);
      const badInput = await rpcError(startTask(client, 'long_napper', { ms: 'soon' }));
      expect([badInput.code, badInput.message]).toEqual([-32602, expect.stringMatching(/^INPUT_INVALID: /)]);
      const unknown = await rpcError(getTask(client, '00000000-0000-4000-8000-000000000000'));
      expect(unknown.code).toBe(-32602);
    });

    it('survives a registry restart: a task polled to completion from a new registry process on a new session', async () => {
      const client = await connect();
      const task = await startTask(client, 'long_napper', { ms: 8000, log_first: false });
      await client.close().catch(() => undefined);
      await registry.stop();
      registry = await startRegistry(registryOptions());
      const after = await connect();
      let seen: Record<string, unknown> = {};
      await eventually(async () => {
        seen = await getTask(after, task.taskId);
        return seen.status === 'completed';
      }, 40_000);
      expect(seen).toMatchObject({ taskId: task.taskId, status: 'completed' });
      const result = await after.request({ method: 'tasks/result', params: { taskId: task.taskId } }, anyResult);
      expect(result.structuredContent).toEqual({ slept_ms: 8000 });
    });
  });

  describe('2026-07-28 (per request, the io.modelcontextprotocol/tasks extension)', () => {
    const modern = (method: string, params: Record<string, unknown>, token = AGENT_TOKEN, tasks = true) =>
      modernRequest(registry.baseUrl, method, params, { token, tasks });

    it('declares the extension, answers resultType task, and tasks/get inlines the result once completed', async () => {
      const discovered = await modern('server/discover', {});
      expect(discovered.result.capabilities.extensions[TASKS_EXTENSION]).toEqual({});
      expect(discovered.result.capabilities.tasks).toBeUndefined();
      const created = await modern('tools/call', { name: 'long_napper', arguments: { ms: 1000, log_first: false } });
      expect(created.result).toMatchObject({
        resultType: 'task',
        status: 'working',
        ttlMs: expect.any(Number),
        pollIntervalMs: expect.any(Number),
      });
      const taskId = created.result.taskId as string;
      let polled: Record<string, any> = {};
      await eventually(async () => {
        polled = (await modern('tasks/get', { taskId })).result;
        return polled.status === 'completed';
      }, 20_000);
      expect(polled).toMatchObject({ resultType: 'complete', taskId, result: { structuredContent: { slept_ms: 1000 } } });
      expect((await modern('tasks/update', { taskId, inputResponses: { unknown: { action: 'accept' } } })).result).toMatchObject({
        resultType: 'complete',
      });
      expect((await modern('tasks/result', { taskId })).error?.code).toBe(-32601);
    });

    it('keeps a tool error as a completed task with isError, and acknowledges tasks/cancel', async () => {
      const failing = (await modern('tools/call', { name: 'long_napper', arguments: { ms: 100, log_first: false, fail: true } })).result;
      await executionEnds(failing.taskId);
      const polled = (await modern('tasks/get', { taskId: failing.taskId })).result;
      expect(polled).toMatchObject({ status: 'completed', result: { isError: true } });

      const running = (await modern('tools/call', { name: 'long_napper', arguments: { ms: 120_000, log_first: false } })).result;
      expect((await modern('tasks/cancel', { taskId: running.taskId })).result).toMatchObject({ resultType: 'complete' });
      expect((await modern('tasks/get', { taskId: running.taskId })).result.status).toBe('cancelled');
      expect((await executionEnds(running.taskId, 30_000)).status).toBe('CANCELLED');
    });

    it('without the extension: a plain result, -32021 for a tool that requires a task and for the tasks methods', async () => {
      const plain = await modern('tools/call', { name: 'long_napper', arguments: { ms: 10, log_first: false } }, AGENT_TOKEN, false);
      expect(plain.result).toMatchObject({ resultType: 'complete', structuredContent: { slept_ms: 10 } });
      const required = await modern('tools/call', { name: 'task_only_echo', arguments: { text: 'x' } }, AGENT_TOKEN, false);
      expect(required.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } });
      const task = (await modern('tools/call', { name: 'task_only_echo', arguments: { text: 'x' } })).result;
      expect(task.resultType).toBe('task');
      expect((await modern('tasks/get', { taskId: task.taskId }, AGENT_TOKEN, false)).error?.code).toBe(-32021);
    });

    it('binds the task to its token: another identity gets -32602 not-found, whichever protocol revision made it', async () => {
      const task = (await modern('tools/call', { name: 'long_napper', arguments: { ms: 100, log_first: false } })).result;
      for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
        const answer = await modern(method, { taskId: task.taskId, inputResponses: {} }, OTHER_TOKEN);
        expect([method, answer.error?.code, answer.error?.message]).toEqual([method, -32602, expect.stringContaining('Task not found')]);
      }
      // A 2025-era session of the same identity polls the same task.
      const client = await connect();
      expect(await getTask(client, task.taskId)).toMatchObject({ taskId: task.taskId });
      const admin = await call(registry.baseUrl, 'GET', `/v1/executions/${task.taskId}`, { token: ADMIN_TOKEN });
      expect(admin.body.caller).toBe('bot');
    });
  });
});
