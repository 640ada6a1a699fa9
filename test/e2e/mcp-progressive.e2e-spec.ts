import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, ProtocolError, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, eventually, obliterateQueue } from '../support/executions.js';
import { modernRequest } from '../support/mcp-raw.js';
import { AGENT_TOKEN, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';

const FIXED = [
  'search_skills',
  'get_skill_info',
  'list_skills',
  'load_skill',
  'unload_skill',
  'activate_tool_group',
  'deactivate_tool_group',
];

/** An Agent Skills package with a default-active group, a dormant one and an ungrouped tool (listing only). */
async function writeGroupedSkill(root: string): Promise<void> {
  const dir = path.join(root, 'agent-skills', 'shape-tools');
  await mkdir(path.join(dir, 'scripts'), { recursive: true });
  await writeFile(
    path.join(dir, 'SKILL.md'),
    '---\nname: shape-tools\ndescription: Make and rig shapes.\nmetadata:\n  dcc-mcp:\n    version: "1.0.0"\n    tools: tools.yaml\n---\n# Shapes\n',
  );
  await writeFile(
    path.join(dir, 'tools.yaml'),
    `groups:
  - { name: modeling, description: Modeling tools., default_active: true, tools: [make_sphere] }
  - { name: rigging, description: Rigging tools. }
tools:
  - name: make_sphere
    description: Make a sphere.
    annotations: { title: Sphere maker, open_world_hint: true }
  - name: add_joint
    description: Add a joint.
    group: rigging
    destructive: true
  - name: inspect
    description: Inspect the scene.
    read_only: true
    defer-loading: true
`,
  );
  for (const tool of ['make_sphere', 'add_joint', 'inspect']) await writeFile(path.join(dir, 'scripts', `${tool}.py`), 'print("{}")\n');
}

/**
 * Progressive MCP exposure (issue 26 §1, seed 004 "On-Demand Discovery" and "Tool Groups") with the official
 * MCP SDK client on 2025-era sessions, and raw JSON-RPC for the 2026-07-28 per-request toolset.
 */
describe('progressive MCP exposure (MCP_TOOL_EXPOSURE=progressive)', () => {
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  const clients: Client[] = [];
  const queuePrefix = `test-mcp-progressive-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase('mcp_progressive');
    root = await tempRoot();
    await writeEchoSkill(root, { name: 'plain_echo', domain: 'demo' });
    await writeEchoSkill(root, {
      name: 'annotated_echo',
      domain: 'demo',
      definition: { title: 'Annotated echo', destructive: true, open_world: true, depends_on: [{ name: 'plain_echo', range: '*' }] },
    });
    await writeGroupedSkill(root);
    registry = await startRegistry({
      databaseUrl: db.url,
      skillPaths: [root],
      queuePrefix,
      agentTokens: true,
      env: { MCP_TOOL_EXPOSURE: 'progressive' },
    });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    await activate(registry.baseUrl, ['plain_echo', 'annotated_echo', 'shape_tools']);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  async function connect(): Promise<{ client: Client; changes: { count: number } }> {
    const client = new Client({ name: 'mcp-progressive-e2e', version: '1.0.0' });
    const changes = { count: 0 };
    client.setNotificationHandler('notifications/tools/list_changed', () => void changes.count++);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${registry.baseUrl}/mcp`), { authProvider: { token: async () => AGENT_TOKEN } }),
    );
    clients.push(client);
    return { client, changes };
  }
  const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);
  const structured = (result: { structuredContent?: unknown }) => result.structuredContent as Record<string, any>;
  const byName = (tools: Tool[], name: string) => tools.find((tool) => tool.name === name) as Tool;

  it('starts with the discovery and loading tools and one stub per skill, no schemas', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...FIXED, '__skill__annotated_echo', '__skill__plain_echo', '__skill__shape_tools']);
    expect(byName(tools, '__skill__shape_tools')).toMatchObject({ inputSchema: { type: 'object' }, _meta: { 'dcc.deferred_hint': true } });
    const stub = await client.callTool({ name: '__skill__plain_echo', arguments: {} });
    expect(stub.isError).toBe(true);
    expect((stub.content as { text: string }[])[0]?.text).toContain('load_skill(skill_name="plain_echo")');
  });

  it('search → load → call: load_skill announces list_changed, lists the tools with every annotation, and loads dependencies', async () => {
    const { client, changes } = await connect();
    const found = structured(await client.callTool({ name: 'search_skills', arguments: { query: 'annotated' } }));
    expect(found.items[0].name).toBe('annotated_echo');
    const loaded = structured(await client.callTool({ name: 'load_skill', arguments: { skill_name: 'annotated_echo' } }));
    expect(loaded).toMatchObject({
      skill: 'annotated_echo',
      tools: ['annotated_echo'],
      dependencies_loaded: ['plain_echo'],
      toolset: expect.any(String),
    });
    await eventually(async () => changes.count > 0, 10_000);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...FIXED, '__skill__shape_tools', 'annotated_echo', 'plain_echo']);
    expect(byName(tools, 'annotated_echo')).toMatchObject({
      title: 'Annotated echo',
      annotations: { title: 'Annotated echo', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
      execution: { taskSupport: 'forbidden' },
      inputSchema: { type: 'object', required: ['text'] },
    });
    const result = await client.callTool({ name: 'annotated_echo', arguments: { text: 'loaded' } });
    expect(result.structuredContent).toEqual({ text: 'loaded', length: 6 });
    const listed = structured(await client.callTool({ name: 'list_skills', arguments: { status: 'loaded' } }));
    expect(listed.items.map((item: { name: string; loaded: boolean }) => [item.name, item.loaded])).toEqual([
      ['annotated_echo', true],
      ['plain_echo', true],
    ]);

    const before = changes.count;
    expect(structured(await client.callTool({ name: 'unload_skill', arguments: { skill_name: 'plain_echo' } })).unloaded).toBe(true);
    await eventually(async () => changes.count > before, 10_000);
    expect(await names(client)).not.toContain('plain_echo');
    // Not listed is not forbidden: an agent that knows the name may call it (the filter and tokens decide that).
    expect((await client.callTool({ name: 'plain_echo', arguments: { text: 'x' } })).structuredContent).toEqual({ text: 'x', length: 1 });
  });

  it('tool groups: default-active groups load with the skill, a dormant one is a stub until activated, and deactivates again', async () => {
    const { client } = await connect();
    const loaded = structured(await client.callTool({ name: 'load_skill', arguments: { skill_name: 'shape_tools' } }));
    expect(loaded.groups).toEqual([
      { name: 'modeling', description: 'Modeling tools.', active: true, tools: ['make_sphere'] },
      { name: 'rigging', description: 'Rigging tools.', active: false, tools: ['add_joint'] },
    ]);
    let tools = (await client.listTools()).tools;
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['shape_tools__make_sphere', 'shape_tools__inspect', '__group__shape_tools__rigging']),
    );
    expect(tools.map((tool) => tool.name)).not.toContain('shape_tools__add_joint');
    expect(byName(tools, 'shape_tools__make_sphere')).toMatchObject({ title: 'Sphere maker', annotations: { openWorldHint: true } });
    expect(byName(tools, 'shape_tools__inspect')._meta).toMatchObject({ 'dcc.deferred_hint': true });
    const dormant = await client.callTool({ name: '__group__shape_tools__rigging', arguments: {} });
    expect((dormant.content as { text: string }[])[0]?.text).toMatch(/^TOOL_GROUP_INACTIVE: .*activate_tool_group/);

    await client.callTool({ name: 'activate_tool_group', arguments: { skill_name: 'shape_tools', group: 'rigging' } });
    tools = (await client.listTools()).tools;
    expect(byName(tools, 'shape_tools__add_joint').annotations).toMatchObject({ destructiveHint: true });
    expect(tools.map((tool) => tool.name)).not.toContain('__group__shape_tools__rigging');
    await client.callTool({ name: 'deactivate_tool_group', arguments: { skill_name: 'shape_tools', group: 'rigging' } });
    expect(await names(client)).toContain('__group__shape_tools__rigging');

    const unknownGroup = await client.callTool({ name: 'activate_tool_group', arguments: { skill_name: 'shape_tools', group: 'nope' } });
    expect((unknownGroup.content as { text: string }[])[0]?.text).toMatch(/^TOOL_GROUP_NOT_FOUND: .*modeling, rigging/);
    const unknownSkill = await client.callTool({ name: 'load_skill', arguments: { skill_name: 'no_such_skill' } });
    expect(unknownSkill.isError).toBe(true);
    const badArguments = await client.callTool({ name: 'load_skill', arguments: { name: 'plain_echo' } });
    expect((badArguments.content as { text: string }[])[0]?.text).toMatch(/^INPUT_INVALID: /);
  });

  it('keeps what each session loaded to itself', async () => {
    const first = await connect();
    const second = await connect();
    await first.client.callTool({ name: 'load_skill', arguments: { skill_name: 'plain_echo' } });
    expect(await names(first.client)).toContain('plain_echo');
    expect(await names(second.client)).not.toContain('plain_echo');
  });

  it('2026-07-28: the loaded skills travel as the toolset token in each request _meta', async () => {
    const modern = (method: string, params: Record<string, unknown>, toolset?: unknown) =>
      modernRequest(registry.baseUrl, method, params, {
        token: AGENT_TOKEN,
        meta: toolset === undefined ? {} : { 'io.skill-registry/toolset': toolset },
      });
    const listNames = async (toolset?: unknown) =>
      ((await modern('tools/list', {}, toolset)).result.tools as Tool[]).map((tool) => tool.name);
    expect(await listNames()).toEqual([...FIXED, '__skill__annotated_echo', '__skill__plain_echo', '__skill__shape_tools']);
    const loaded = (await modern('tools/call', { name: 'load_skill', arguments: { skill_name: 'plain_echo' } })).result.structuredContent;
    expect(await listNames(loaded.toolset)).toEqual([...FIXED, '__skill__annotated_echo', '__skill__shape_tools', 'plain_echo']);
    // The next change builds on the token the request carries.
    const more = (await modern('tools/call', { name: 'load_skill', arguments: { skill_name: 'shape_tools' } }, loaded.toolset)).result
      .structuredContent;
    expect(await listNames(more.toolset)).toEqual(expect.arrayContaining(['plain_echo', 'shape_tools__make_sphere']));
    const refused = await modern('tools/list', {}, 'not-a-toolset');
    expect(refused.error?.code).toBe(-32602);
  });

  it('refuses a tool that is no exposed skill with -32602, as in mode all', async () => {
    const { client } = await connect();
    const error = await client.callTool({ name: 'no_such_tool', arguments: {} }).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32602);
  });
});
