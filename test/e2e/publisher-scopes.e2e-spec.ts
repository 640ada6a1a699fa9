import { rm } from 'node:fs/promises';
import { status as grpcStatus } from '@grpc/grpc-js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import pg from 'pg';
import { packPackageArchive, readPackageDir } from '#package-store/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, obliterateQueue } from '../support/executions.js';
import { bearer, grpcPort, registryClient, struct, unary, type RegistryClient } from '../support/grpc.js';
import { ADMIN_TOKEN, AGENT_TOKEN, PUBLISHER_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';

/**
 * Who may change what, on every mutating call of REST, gRPC and MCP: no token, an unknown one, an
 * agent, a publisher (scope `acme_*`) inside and outside its scope, and an admin. Refused calls change
 * nothing; allowed ones do what they say.
 */
const TOKENS = {
  none: undefined,
  unknown: 'not-a-known-token-1',
  agent: AGENT_TOKEN,
  publisher: PUBLISHER_TOKEN,
  admin: ADMIN_TOKEN,
} as const;
type Caller = keyof typeof TOKENS;

/** Skills on disk; each allowed mutation gets a target of its own so the matrix cells do not interfere. */
const DISK_SKILLS = [
  'acme_promote',
  'acme_dep_publisher',
  'other_dep_admin',
  'acme_exec',
  'acme_grpc_promote',
  'acme_grpc_dep',
  'other_grpc_dep',
  'acme_mcp',
];
const ACTIVE = ['acme_dep_publisher', 'other_dep_admin', 'acme_exec', 'acme_grpc_dep', 'other_grpc_dep', 'acme_mcp'];

describe('publisher scopes and the auth matrix of every mutating call', () => {
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  let client: RegistryClient;
  let pool: pg.Pool;
  const mcpClients: Client[] = [];
  const queuePrefix = `test-scopes-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase('scopes');
    root = await tempRoot();
    for (const name of DISK_SKILLS) await writeEchoSkill(root, { name });
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root], agentTokens: true, queuePrefix });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    await activate(registry.baseUrl, ACTIVE);
    client = registryClient(grpcPort(registry));
    pool = new pg.Pool({ connectionString: db.url, max: 1 });
  });

  afterAll(async () => {
    await Promise.all(mcpClients.map((mcp) => mcp.close().catch(() => undefined)));
    client?.close();
    await executor?.stop();
    await registry?.stop();
    await pool?.end();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  /** Everything a mutation can change: versions and their states, lifecycle events, executions, stored packages. */
  const state = async () =>
    (
      await pool.query(`SELECT
        (SELECT string_agg(s.name || '@' || v.version || ':' || v.status, ',' ORDER BY s.name, v.version)
           FROM skill_versions v JOIN skills s ON s.id = v.skill_id) AS versions,
        (SELECT count(*) FROM lifecycle_events)::int AS events,
        (SELECT string_agg(id::text, ',' ORDER BY id) FROM executions) AS executions,
        (SELECT count(*) FROM packages)::int AS packages`)
    ).rows[0];

  async function archiveOf(name: string): Promise<Buffer> {
    const dir = await tempRoot();
    const archive = await packPackageArchive(await readPackageDir(await writeEchoSkill(dir, { name })));
    await rm(dir, { recursive: true, force: true });
    return archive;
  }

  const rest = async (method: string, path: string, caller: Caller, body?: unknown) =>
    (await call(registry.baseUrl, method, path, { token: TOKENS[caller], body })).status;

  const restPublish = async (archive: Buffer, caller: Caller) => {
    const headers: Record<string, string> = { 'content-type': 'application/gzip' };
    if (TOKENS[caller]) headers.authorization = `Bearer ${TOKENS[caller]}`;
    return (await fetch(`${registry.baseUrl}/v1/packages`, { method: 'POST', headers, body: archive })).status;
  };

  const rpc = async (method: string, request: object, caller: Caller): Promise<number> => {
    try {
      await unary(client, method, request, bearer(TOKENS[caller]));
      return grpcStatus.OK;
    } catch (error) {
      return (error as { code: number }).code;
    }
  };

  const queued = async (name: string) =>
    (await call(registry.baseUrl, 'POST', `/v1/skills/${name}/executions`, { token: ADMIN_TOKEN, body: { input: { text: 'x' } } })).body
      .id as string;

  /** A refusal for each caller that may not make the call, then the state compared with before. */
  async function expectRefusals(cells: [Caller, () => Promise<number>, number][]): Promise<void> {
    const before = await state();
    const seen = [];
    for (const [caller, attempt] of cells) seen.push([caller, await attempt()]);
    expect(seen).toEqual(cells.map(([caller, , expected]) => [caller, expected]));
    expect(await state()).toEqual(before);
  }

  describe('REST', () => {
    const refusedUnlessAdmin = (method: string, path: string, body?: unknown) =>
      (['none', 'unknown', 'agent', 'publisher'] as Caller[]).map((caller): [Caller, () => Promise<number>, number] => [
        caller,
        () => rest(method, path, caller, body),
        caller === 'none' || caller === 'unknown' ? 401 : 403,
      ]);

    it('POST /v1/admin/discover and /v1/admin/skills stay admin-only', async () => {
      await expectRefusals([
        ...refusedUnlessAdmin('POST', '/v1/admin/discover'),
        ...refusedUnlessAdmin('POST', '/v1/admin/skills', { path: 'demo/acme_exec' }),
      ]);
      expect(await rest('POST', '/v1/admin/discover', 'admin')).toBe(200);
      expect(await rest('POST', '/v1/admin/skills', 'admin', { path: 'demo/acme_exec' })).toBe(200);
    });

    it('promotion stays an admin act, even for a name inside a publisher scope', async () => {
      const path = '/v1/admin/skills/acme_promote/versions/1.0.0/promote';
      const body = { force: true, reason: 'matrix' };
      await expectRefusals(refusedUnlessAdmin('POST', path, body));
      expect(await rest('POST', path, 'admin', body)).toBe(200);
    });

    it('deprecation: a publisher inside its scope and an admin; nobody else', async () => {
      const inside = '/v1/admin/skills/acme_dep_publisher/deprecate';
      const outside = '/v1/admin/skills/other_dep_admin/deprecate';
      const body = { reason: 'matrix' };
      await expectRefusals([
        ['none', () => rest('POST', inside, 'none', body), 401],
        ['unknown', () => rest('POST', inside, 'unknown', body), 401],
        ['agent', () => rest('POST', inside, 'agent', body), 403],
        ['publisher', () => rest('POST', outside, 'publisher', body), 403],
      ]);
      expect(await rest('POST', inside, 'publisher', body)).toBe(200);
      expect(await rest('POST', outside, 'admin', body)).toBe(200);
      const history = await call(registry.baseUrl, 'GET', '/v1/skills/acme_dep_publisher/history', { token: AGENT_TOKEN });
      expect(history.body.items.at(-1)).toMatchObject({ to: 'DEPRECATED', actor: 'acme' });
    });

    it('publishing: a publisher inside its scope and an admin; a refused archive stores nothing', async () => {
      const inside = await archiveOf('acme_published');
      const outside = await archiveOf('other_published');
      await expectRefusals([
        ['none', () => restPublish(inside, 'none'), 401],
        ['unknown', () => restPublish(inside, 'unknown'), 401],
        ['agent', () => restPublish(inside, 'agent'), 403],
        ['publisher', () => restPublish(outside, 'publisher'), 403],
      ]);
      expect(await restPublish(inside, 'publisher')).toBe(201);
      expect(await restPublish(outside, 'admin')).toBe(201);
      const published = await call(registry.baseUrl, 'GET', '/v1/skills/acme_published/history', { token: AGENT_TOKEN });
      expect(published.body.items[0]).toMatchObject({ to: 'REGISTERED', actor: 'acme' });
    });

    it('the publisher is told which scopes it has when it publishes outside them', async () => {
      const response = await fetch(`${registry.baseUrl}/v1/packages`, {
        method: 'POST',
        headers: { 'content-type': 'application/gzip', authorization: `Bearer ${PUBLISHER_TOKEN}` },
        body: await archiveOf('other_scoped'),
      });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({
        code: 'FORBIDDEN',
        detail: expect.stringMatching(/acme_\*.*'other_scoped' is outside them/),
      });
    });

    it('executions and cancellation: every known token, never none or an unknown one', async () => {
      const execute = (caller: Caller) => rest('POST', '/v1/skills/acme_exec/executions', caller, { input: { text: 'x' } });
      await expectRefusals([
        ['none', () => execute('none'), 401],
        ['unknown', () => execute('unknown'), 401],
      ]);
      for (const caller of ['agent', 'publisher', 'admin'] as Caller[]) expect(await execute(caller)).toBe(202);
      const id = await queued('acme_exec');
      await expectRefusals([
        ['none', () => rest('POST', `/v1/executions/${id}/cancel`, 'none'), 401],
        ['unknown', () => rest('POST', `/v1/executions/${id}/cancel`, 'unknown'), 401],
      ]);
      for (const caller of ['agent', 'publisher', 'admin'] as Caller[]) {
        expect([200, 409]).toContain(await rest('POST', `/v1/executions/${await queued('acme_exec')}/cancel`, caller));
      }
    });
  });

  describe('gRPC', () => {
    const { UNAUTHENTICATED, PERMISSION_DENIED, OK } = grpcStatus;
    const refusedUnlessAdmin = (method: string, request: object) =>
      (['none', 'unknown', 'agent', 'publisher'] as Caller[]).map((caller): [Caller, () => Promise<number>, number] => [
        caller,
        () => rpc(method, request, caller),
        caller === 'none' || caller === 'unknown' ? UNAUTHENTICATED : PERMISSION_DENIED,
      ]);

    it('Discover, RegisterSkill and PromoteSkill stay admin-only', async () => {
      const promote = { name: 'acme_grpc_promote', version: '1.0.0', force: true, reason: 'matrix' };
      await expectRefusals([
        ...refusedUnlessAdmin('Discover', {}),
        ...refusedUnlessAdmin('RegisterSkill', { path: 'demo/acme_exec' }),
        ...refusedUnlessAdmin('PromoteSkill', promote),
      ]);
      expect(await rpc('Discover', {}, 'admin')).toBe(OK);
      expect(await rpc('RegisterSkill', { path: 'demo/acme_exec' }, 'admin')).toBe(OK);
      expect(await rpc('PromoteSkill', promote, 'admin')).toBe(OK);
    });

    it('DeprecateSkill and PublishPackage: a publisher inside its scope and an admin', async () => {
      const deprecate = (name: string, caller: Caller) => rpc('DeprecateSkill', { name, reason: 'matrix' }, caller);
      const publish = (archive: Buffer, caller: Caller) => rpc('PublishPackage', { archive }, caller);
      const inside = await archiveOf('acme_grpc_published');
      const outside = await archiveOf('other_grpc_published');
      await expectRefusals([
        ['none', () => deprecate('acme_grpc_dep', 'none'), UNAUTHENTICATED],
        ['unknown', () => deprecate('acme_grpc_dep', 'unknown'), UNAUTHENTICATED],
        ['agent', () => deprecate('acme_grpc_dep', 'agent'), PERMISSION_DENIED],
        ['publisher', () => deprecate('other_grpc_dep', 'publisher'), PERMISSION_DENIED],
        ['none', () => publish(inside, 'none'), UNAUTHENTICATED],
        ['unknown', () => publish(inside, 'unknown'), UNAUTHENTICATED],
        ['agent', () => publish(inside, 'agent'), PERMISSION_DENIED],
        ['publisher', () => publish(outside, 'publisher'), PERMISSION_DENIED],
      ]);
      expect(await deprecate('acme_grpc_dep', 'publisher')).toBe(OK);
      expect(await deprecate('other_grpc_dep', 'admin')).toBe(OK);
      expect(await publish(inside, 'publisher')).toBe(OK);
      expect(await publish(outside, 'admin')).toBe(OK);
    });

    it('ExecuteSkill and CancelExecution: every known token, never none or an unknown one', async () => {
      const execute = (caller: Caller) => rpc('ExecuteSkill', { name: 'acme_exec', input: struct({ text: 'x' }) }, caller);
      const id = await queued('acme_exec');
      await expectRefusals([
        ['none', () => execute('none'), UNAUTHENTICATED],
        ['unknown', () => execute('unknown'), UNAUTHENTICATED],
        ['none', () => rpc('CancelExecution', { id }, 'none'), UNAUTHENTICATED],
        ['unknown', () => rpc('CancelExecution', { id }, 'unknown'), UNAUTHENTICATED],
      ]);
      for (const caller of ['agent', 'publisher', 'admin'] as Caller[]) {
        expect(await execute(caller)).toBe(OK);
        expect([OK, grpcStatus.FAILED_PRECONDITION]).toContain(await rpc('CancelExecution', { id: await queued('acme_exec') }, caller));
      }
    });
  });

  describe('MCP', () => {
    async function connect(caller: Caller): Promise<Client> {
      const token = TOKENS[caller];
      const mcp = new Client({ name: 'scopes-e2e', version: '1.0.0' });
      mcpClients.push(mcp);
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(`${registry.baseUrl}/mcp`), token ? { authProvider: { token: async () => token } } : {}),
      );
      return mcp;
    }

    it('tools/call (an execution) needs a known token: agents, publishers and admins run it', async () => {
      const before = await state();
      await expect(connect('none')).rejects.toThrow(/401|Unauthorized/i);
      await expect(connect('unknown')).rejects.toThrow(/401|Unauthorized/i);
      expect((await state()).executions).toEqual(before.executions);
      for (const caller of ['agent', 'publisher', 'admin'] as Caller[]) {
        const result = await (await connect(caller)).callTool({ name: 'acme_mcp', arguments: { text: 'hello' } });
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toEqual({ text: 'hello', length: 5 });
      }
    });
  });
});
