import { rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { Client, ProtocolError, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, eventually, EXECUTION_SKILLS_ROOT, markerDir, obliterateQueue } from '../support/executions.js';
import { ADMIN_TOKEN, AGENT_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';

/** Input schema that already meets OpenAI's strict rules (all required, no extra keys). */
const STRICT_ECHO_SCHEMA = `import { z } from '@skill-registry/sdk';
export const EchoInput = z.object({ text: z.string().describe('Text to echo back') }).strict();
export const EchoOutput = z.object({ text: z.string().describe('The same text'), length: z.number().int().describe('Length in characters') });
`;

const EXECUTION_SKILLS = ['quick_noop', 'sleepy', 'stuck_forever', 'bad_output'];
const ECHO_SKILLS = ['firmware_echo', 'firmware_phase2_echo', 'sim_echo'];
const DISCOVERY = ['search_skills', 'get_skill_info'];

describe('the registry as an MCP server (official MCP SDK client over Streamable HTTP)', () => {
  let db: TestDatabase;
  let root: string;
  let markers: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  const clients: Client[] = [];
  const queuePrefix = `test-mcp-${process.pid}-${Date.now()}`;
  const admin = (method: string, p: string, body: unknown = {}) => call(registry.baseUrl, method, p, { token: ADMIN_TOKEN, body });
  const ajv = new Ajv2020({ strict: false });

  beforeAll(async () => {
    db = await createTestDatabase('mcp');
    root = await tempRoot();
    markers = await markerDir();
    await writeEchoSkill(root, {
      name: 'firmware_echo',
      domain: 'firmware',
      schemaSource: STRICT_ECHO_SCHEMA,
      definition: { tags: ['firmware', 'echo'], read_only: true, idempotent: true },
    });
    await writeEchoSkill(root, {
      name: 'firmware_phase2_echo',
      domain: 'firmware',
      definition: { phase: 2, tags: ['firmware', 'echo'], idempotent: false },
    });
    await writeEchoSkill(root, { name: 'sim_echo', domain: 'simulation', definition: { tags: ['simulation', 'echo'] } });
    await writeEchoSkill(root, { name: 'registered_echo', domain: 'simulation', definition: { tags: ['simulation', 'echo'] } });
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [EXECUTION_SKILLS_ROOT, root], queuePrefix, agentTokens: true });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    await activate(registry.baseUrl, [...EXECUTION_SKILLS, ...ECHO_SKILLS]);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
    await rm(markers, { recursive: true, force: true });
  });

  async function connect(endpoint = '/mcp', token: string | null = AGENT_TOKEN, options: ConstructorParameters<typeof Client>[1] = {}) {
    const client = new Client({ name: 'mcp-e2e', version: '1.0.0' }, options);
    const transport = new StreamableHTTPClientTransport(
      new URL(`${registry.baseUrl}${endpoint}`),
      token ? { authProvider: { token: async () => token } } : {},
    );
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  /** Counts notifications/tools/list_changed received by a (2025-era) client. */
  function countListChanged(client: Client): { count: number } {
    const counter = { count: 0 };
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      counter.count++;
    });
    return counter;
  }

  const restSkill = async (name: string) => (await call(registry.baseUrl, 'GET', `/v1/skills/${name}`, { token: AGENT_TOKEN })).body;
  const text = (result: { content?: unknown }) => ((result.content as { type: string; text: string }[])[0] as { text: string }).text;
  const byName = (tools: Tool[], name: string) => tools.find((tool) => tool.name === name) as Tool;

  describe('tools/list', () => {
    it('lists exactly the ACTIVE and DEPRECATED skills, after the discovery tools, with their stored schemas and hints', async () => {
      const { client } = await connect();
      expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([...DISCOVERY, ...[...EXECUTION_SKILLS, ...ECHO_SKILLS].sort()]);
      expect(tools.map((tool) => tool.name)).not.toContain('registered_echo');
      for (const name of [...EXECUTION_SKILLS, ...ECHO_SKILLS]) {
        const tool = byName(tools, name);
        const rest = await restSkill(name);
        expect(tool.description).toBe(rest.description);
        expect(tool.inputSchema).toEqual(rest.input_schema);
        expect(tool.outputSchema).toEqual(rest.output_schema);
        expect(tool.inputSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
        expect(tool.annotations).toEqual({
          readOnlyHint: rest.read_only,
          destructiveHint: false,
          idempotentHint: rest.idempotent,
          openWorldHint: false,
        });
        // Every test skill has a timeout of 30 s or less: its calls are not tasks (the default rule).
        expect(tool.execution).toEqual({ taskSupport: 'forbidden' });
      }
      expect(byName(tools, 'firmware_echo').annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
      expect(byName(tools, 'firmware_phase2_echo').annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
      for (const name of DISCOVERY) {
        const tool = byName(tools, name);
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.outputSchema?.type).toBe('object');
        expect(tool.annotations).toMatchObject({ readOnlyHint: true });
      }
    });
  });

  describe('tools/call', () => {
    it('executes the skill and returns structuredContent that validates against the outputSchema, plus the JSON as text', async () => {
      const { client, transport } = await connect();
      const { tools } = await client.listTools();
      const result = await client.callTool({ name: 'firmware_echo', arguments: { text: 'hello' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ text: 'hello', length: 5 });
      expect(JSON.parse(text(result))).toEqual({ text: 'hello', length: 5 });
      const validate = ajv.compile(byName(tools, 'firmware_echo').outputSchema as object);
      expect(validate(result.structuredContent)).toBe(true);
      const execution = (result._meta as Record<string, any>)['skill-registry/execution'];
      expect(execution).toMatchObject({ skill: 'firmware_echo', version: '1.0.0', status: 'SUCCEEDED', attempts: 1 });
      const stored = (await call(registry.baseUrl, 'GET', `/v1/executions/${execution.id}`, { token: AGENT_TOKEN })).body;
      expect(stored).toMatchObject({
        status: 'SUCCEEDED',
        caller: 'bot',
        session_id: transport.sessionId,
        output: { text: 'hello', length: 5 },
      });
    });

    it('sends progress notifications while the skill runs when the client asks for them', async () => {
      const { client } = await connect();
      const progress: { progress: number; message?: string }[] = [];
      const result = await client.callTool(
        { name: 'sleepy', arguments: { marker: path.join(markers, 'progress'), ms: 400, ignore_signal: false } },
        { onprogress: (update) => void progress.push(update) },
      );
      expect(result.structuredContent).toEqual({ attempt: 1 });
      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress.map((update) => update.message)).toEqual(expect.arrayContaining(['queued sleepy 1.0.0', 'attempt 1 started']));
      const counts = progress.map((update) => update.progress);
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
    });

    it('returns a failing skill as isError with its error code and message', async () => {
      const { client } = await connect();
      const stuck = await client.callTool({ name: 'stuck_forever', arguments: { marker: path.join(markers, 'stuck') } });
      expect(stuck.isError).toBe(true);
      expect(stuck.structuredContent).toBeUndefined();
      expect(text(stuck)).toMatch(/^HANDLER_TIMEOUT: .*1000 ms/);
      const bad = await client.callTool({ name: 'bad_output', arguments: { marker: path.join(markers, 'bad') } });
      expect(bad.isError).toBe(true);
      expect(text(bad)).toMatch(/^OUTPUT_INVALID: /);
    });

    it('answers bad arguments with isError listing every schema error, and runs nothing', async () => {
      const { client } = await connect();
      const before = (await call(registry.baseUrl, 'GET', '/v1/executions?skill=sleepy&limit=100', { token: AGENT_TOKEN })).body.items
        .length;
      const result = await client.callTool({ name: 'sleepy', arguments: { marker: 7, ms: -1, extra: true } });
      expect(result.isError).toBe(true);
      const message = text(result);
      expect(message).toMatch(/^INPUT_INVALID: /);
      expect(message).toContain('/marker: ');
      expect(message).toContain('/ms: ');
      const after = (await call(registry.baseUrl, 'GET', '/v1/executions?skill=sleepy&limit=100', { token: AGENT_TOKEN })).body.items
        .length;
      expect(after).toBe(before);
    });

    it('cancels the execution when the client cancels the call', async () => {
      const { client, transport } = await connect();
      const abort = new AbortController();
      const pending = client
        .callTool(
          { name: 'sleepy', arguments: { marker: path.join(markers, 'cancel'), ms: 20_000, ignore_signal: false } },
          { signal: abort.signal },
        )
        .catch((error: unknown) => error);
      const executions = () =>
        call(registry.baseUrl, 'GET', `/v1/executions?skill=sleepy&session_id=${transport.sessionId}`, { token: AGENT_TOKEN }).then(
          (response) => response.body.items as { id: string; status: string }[],
        );
      await eventually(async () => (await executions())[0]?.status === 'RUNNING', 10_000);
      abort.abort();
      expect(await pending).toBeInstanceOf(Error);
      await eventually(async () => (await executions())[0]?.status === 'CANCELLED', 10_000);
    });

    it('rejects an unknown tool, and a skill that is not ACTIVE/DEPRECATED, with JSON-RPC -32602', async () => {
      const { client } = await connect();
      for (const name of ['no_such_skill', 'registered_echo']) {
        const error = await client.callTool({ name, arguments: {} }).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ProtocolError);
        expect((error as ProtocolError).code).toBe(-32602);
      }
    });
  });

  describe('discovery tools', () => {
    it('search_skills ranks like GET /v1/search and get_skill_info answers like GET /v1/skills/{name}', async () => {
      const { client } = await connect();
      const search = await client.callTool({ name: 'search_skills', arguments: { query: 'echo', limit: 3 } });
      expect(search.isError).toBeFalsy();
      const rest = (await call(registry.baseUrl, 'GET', '/v1/search?q=echo&limit=3', { token: AGENT_TOKEN })).body;
      expect(search.structuredContent).toEqual(rest);
      expect((search.structuredContent as { total: number }).total).toBe(4);
      const narrowed = await client.callTool({ name: 'search_skills', arguments: { query: 'echo', domain: 'simulation', tags: ['echo'] } });
      expect((narrowed.structuredContent as { items: { name: string }[] }).items.map((item) => item.name).sort()).toEqual([
        'registered_echo',
        'sim_echo',
      ]);

      const info = await client.callTool({ name: 'get_skill_info', arguments: { name: 'firmware_echo' } });
      expect(info.isError).toBeFalsy();
      expect(info.structuredContent).toEqual(await restSkill('firmware_echo'));
      expect(info.structuredContent).toMatchObject({ status: 'ACTIVE', deprecation: null, input_schema: { type: 'object' } });

      const missing = await client.callTool({ name: 'get_skill_info', arguments: { name: 'no_such_skill' } });
      expect(missing.isError).toBe(true);
      expect(text(missing)).toMatch(/^SKILL_NOT_FOUND: /);
      const invalid = await client.callTool({ name: 'search_skills', arguments: { query: '', limit: 1000 } });
      expect(invalid.isError).toBe(true);
      expect(text(invalid)).toMatch(/^INPUT_INVALID: /);
      // A cursor search_skills never issued is the caller's mistake, as on REST (400 INVALID_CURSOR): an error result.
      for (const cursor of ['not-a-cursor', 'MA', Buffer.from('9999999').toString('base64url')]) {
        const refused = await client.callTool({ name: 'search_skills', arguments: { query: 'echo', cursor } });
        expect({ cursor, isError: refused.isError, text: text(refused).slice(0, 15) }).toEqual({
          cursor,
          isError: true,
          text: 'INVALID_CURSOR:',
        });
      }
      // NUL characters are refused before any tool runs, as everywhere on /mcp (-32602).
      const nul = await client
        .callTool({ name: 'search_skills', arguments: { query: 'echo', cursor: '\u0000' } })
        .catch((caught: unknown) => caught);
      expect(String(nul)).toMatch(/-32602.*NUL/);
    });
  });

  describe('per-connection filters', () => {
    it('shows a connection opened on /mcp?phase=1&tag=firmware only its skills, in tools/list, calls and discovery', async () => {
      const { client } = await connect('/mcp?phase=1&tag=firmware');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([...DISCOVERY, 'firmware_echo']);
      const outside = await client.callTool({ name: 'quick_noop', arguments: { marker: 'x' } }).catch((caught: unknown) => caught);
      expect((outside as ProtocolError).code).toBe(-32602);
      const search = await client.callTool({ name: 'search_skills', arguments: { query: 'echo' } });
      expect((search.structuredContent as { items: { name: string }[] }).items.map((item) => item.name)).toEqual(['firmware_echo']);
      const hidden = await client.callTool({ name: 'get_skill_info', arguments: { name: 'sim_echo' } });
      expect(text(hidden)).toMatch(/^SKILL_NOT_FOUND: /);

      const domain = await connect('/mcp?domain=simulation');
      expect((await domain.client.listTools()).tools.map((tool) => tool.name)).toEqual([...DISCOVERY, 'sim_echo']);
    });

    it('refuses a malformed filter with a 400 problem', async () => {
      const response = await call(registry.baseUrl, 'POST', '/mcp?phase=9&colour=red', { token: AGENT_TOKEN, body: initializeRequest() });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(response.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['colour', 'phase']);
    });
  });

  describe('auth (AGENT_TOKENS set)', () => {
    it('refuses requests without a token or with an unknown one with a 401 problem, and the SDK client cannot connect', async () => {
      for (const token of [undefined, 'not-a-known-token']) {
        const response = await call(registry.baseUrl, 'POST', '/mcp', { token, body: initializeRequest(), headers: MCP_HEADERS });
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toContain('Bearer');
        expect(response.body.code).toBe('UNAUTHENTICATED');
      }
      await expect(connect('/mcp', null)).rejects.toThrow();
      await expect(connect('/mcp', 'not-a-known-token')).rejects.toThrow();
    });

    it('keeps a session to the identity that opened it, and ends it on DELETE', async () => {
      const { transport } = await connect();
      const sessionId = transport.sessionId as string;
      const listRequest = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
      const headers = { ...MCP_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
      const stolen = await call(registry.baseUrl, 'POST', '/mcp', { token: ADMIN_TOKEN, body: listRequest, headers });
      expect(stolen.status).toBe(404);
      const own = await call(registry.baseUrl, 'POST', '/mcp', { token: AGENT_TOKEN, body: listRequest, headers });
      expect(own.status).toBe(200);
      await transport.terminateSession();
      const ended = await call(registry.baseUrl, 'POST', '/mcp', { token: AGENT_TOKEN, body: listRequest, headers });
      expect(ended.status).toBe(404);
    });

    it('refuses a browser Origin other than its own (DNS rebinding)', async () => {
      const response = await call(registry.baseUrl, 'POST', '/mcp', {
        token: AGENT_TOKEN,
        body: initializeRequest(),
        headers: { ...MCP_HEADERS, origin: 'http://evil.example' },
      });
      expect(response.status).toBe(403);
    });

    it('refuses a Host it does not answer to even when the Origin matches it (a rebound name), before any session opens', async () => {
      // fetch may not set Host: node:http can, as a browser on a rebound name does.
      const post = (path: string, method: string, headers: Record<string, string>, body?: unknown) =>
        new Promise<{ status: number; code: string | undefined; session: string | undefined }>((resolve, reject) => {
          const request = httpRequest(
            `${registry.baseUrl}${path}`,
            { method, headers: { authorization: `Bearer ${AGENT_TOKEN}`, ...headers } },
            (response) => {
              let text = '';
              response.on('data', (chunk) => (text += chunk));
              response.on('end', () =>
                resolve({
                  status: response.statusCode ?? 0,
                  code: text.startsWith('{') ? JSON.parse(text).code : undefined,
                  session: response.headers['mcp-session-id'] as string | undefined,
                }),
              );
            },
          );
          request.on('error', reject);
          request.end(body === undefined ? undefined : JSON.stringify(body));
        });
      const json = { ...MCP_HEADERS, 'content-type': 'application/json' };
      for (const host of ['evil.example.com', 'evil.example.com:80', '127.0.0.1.evil.example']) {
        const answer = await post('/mcp', 'POST', { ...json, host, origin: `http://${host}` }, initializeRequest());
        expect({ host, ...answer }).toEqual({ host, status: 403, code: 'HOST_NOT_ALLOWED', session: undefined });
      }
      const events = await post('/v1/executions/00000000-0000-4000-8000-000000000000/events', 'GET', { host: 'evil.example.com' });
      expect(events).toMatchObject({ status: 403, code: 'HOST_NOT_ALLOWED' });
      // The registry's own names keep working, with or without a matching browser Origin.
      const local = new URL(registry.baseUrl).host;
      for (const host of [local, local.replace('127.0.0.1', 'localhost')]) {
        const own = await post('/mcp', 'POST', { ...json, host, origin: `http://${host}` }, initializeRequest());
        expect({ host, status: own.status }).toEqual({ host, status: 200 });
      }
    });

    it('answers tools/list with a cursor that is not a string with -32602, not -32603', async () => {
      const { transport } = await connect();
      const headers = { ...MCP_HEADERS, 'mcp-session-id': transport.sessionId as string, 'mcp-protocol-version': '2025-11-25' };
      for (const cursor of [123, { a: 1 }, ['x'], true]) {
        const answer = await call(registry.baseUrl, 'POST', '/mcp', {
          token: AGENT_TOKEN,
          body: { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { cursor } },
          headers,
        });
        const message = typeof answer.body === 'string' ? JSON.parse(answer.body.split('data: ')[1] ?? '{}') : answer.body;
        expect({ cursor, code: message.error?.code }).toEqual({ cursor, code: -32602 });
      }
      await transport.terminateSession();
    });
  });

  describe('notifications/tools/list_changed', () => {
    it('is sent after a deprecation (to the connections that show the skill), and the deprecated tool says so and still runs', async () => {
      const everything = await connect();
      const firmwareOnly = await connect('/mcp?tag=firmware');
      const all = countListChanged(everything.client);
      const firmware = countListChanged(firmwareOnly.client);
      await everything.client.listTools();
      const deprecated = await admin('POST', '/v1/admin/skills/quick_noop/deprecate', {
        reason: 'superseded by sleepy',
        successor: 'sleepy',
      });
      expect(deprecated.status).toBe(200);
      await eventually(async () => all.count > 0, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(firmware.count).toBe(0);

      const tool = byName((await everything.client.listTools()).tools, 'quick_noop');
      expect(tool.description).toContain('DEPRECATED: superseded by sleepy');
      expect(tool.description).toContain("use 'sleepy' instead");
      const result = await everything.client.callTool({ name: 'quick_noop', arguments: { marker: 'abcd' } });
      expect(result.structuredContent).toEqual({ attempt: 4 });
      expect((result.content as { text: string }[]).map((block) => block.text).join('\n')).toContain('is deprecated: superseded by sleepy');
    });

    it('is sent after a promotion, and the promoted skill becomes a tool', async () => {
      const { client } = await connect();
      const counter = countListChanged(client);
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('registered_echo');
      await activate(registry.baseUrl, ['registered_echo']);
      await eventually(async () => counter.count > 0, 10_000);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('registered_echo');
    });

    it('is sent after an archive (package removed from disk), and the tool is gone', async () => {
      const { client } = await connect();
      const counter = countListChanged(client);
      await rm(path.join(root, 'simulation', 'sim_echo'), { recursive: true, force: true });
      expect((await admin('POST', '/v1/admin/discover')).status).toBe(200);
      expect((await restSkill('sim_echo')).status).toBe('ARCHIVED');
      await eventually(async () => counter.count > 0, 10_000);
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('sim_echo');
    });
  });

  describe('2026-07-28 clients (per-request serving, subscriptions/listen)', () => {
    it('lists and calls tools and receives list_changed on its listen stream', async () => {
      const changes: string[][] = [];
      const { client } = await connect('/mcp', AGENT_TOKEN, {
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        listChanged: { tools: { debounceMs: 0, onChanged: (_error, tools) => void changes.push((tools ?? []).map((tool) => tool.name)) } },
      });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('firmware_echo');
      const result = await client.callTool({ name: 'firmware_echo', arguments: { text: 'modern' } });
      expect(result.structuredContent).toEqual({ text: 'modern', length: 6 });
      const failing = await client.callTool({ name: 'stuck_forever', arguments: { marker: path.join(markers, 'stuck-modern') } });
      expect(text(failing)).toMatch(/^HANDLER_TIMEOUT: /);

      await admin('POST', '/v1/admin/skills/firmware_phase2_echo/deprecate', {
        reason: 'merged into firmware_echo',
        successor: 'firmware_echo',
      });
      await eventually(async () => changes.length > 0, 10_000);
      const refreshed = byName((await client.listTools()).tools, 'firmware_phase2_echo');
      expect(refreshed.description).toContain('DEPRECATED: merged into firmware_echo');
    });
  });
});

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

function initializeRequest() {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-http', version: '1.0.0' } },
  };
}
