import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { packPackageArchive, readPackageDir } from '#package-store/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, obliterateQueue, readSse } from '../support/executions.js';
import { bearer, grpcPort, registryClient, struct, unary, type RegistryClient } from '../support/grpc.js';
import { ADMIN_TOKEN, PUBLISHER_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { REPO_ROOT, tempRoot } from '../support/skill-packages.js';

const MAYA_GEOMETRY = path.join(REPO_ROOT, 'test/fixtures/agent-skills/good/maya-geometry');

/** A small infrastructure package (seed 004's usd-tools) under `name`, to publish. */
async function writeUsdTools(root: string, name: string): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(path.join(dir, 'scripts'), { recursive: true });
  await writeFile(
    path.join(dir, 'SKILL.md'),
    `---
name: ${name}
description: >-
  Infrastructure skill — low-level OpenUSD scene inspection: traverse prims, validate a sphere prim's schema.
  Use when working directly with raw USD files. Not for Maya export — use maya-geometry for that.
metadata:
  dcc-mcp:
    version: "1.0.0"
    layer: infrastructure
    tags: [usd]
    search-hint: "usd stage, prim, sphere schema validation"
    tools: tools.yaml
---
# USD tools
`,
  );
  await writeFile(
    path.join(dir, 'tools.yaml'),
    'tools:\n  - name: validate\n    description: Validate a USD stage.\n    source_file: scripts/validate.py\n    idempotent: true\n',
  );
  await writeFile(path.join(dir, 'scripts/validate.py'), 'import json, sys\njson.load(sys.stdin)\nprint(json.dumps({"valid": True}))\n');
  return dir;
}

/**
 * Seed 004's package, all of it, on the real registry and executor: maya-geometry (the seed's example, with prompts,
 * resources, a workflow and runtimes) found on disk, and small packages published by an admin and a publisher.
 */
describe("seed 004's package: sidecars read and served, runtimes probed, search as the seed ranks, workflows run", () => {
  let db: TestDatabase;
  let disk: string;
  let scratch: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  let grpc: RegistryClient;
  let mcp: Client;
  const queuePrefix = `test-seed004-${process.pid}-${Date.now()}`;
  const get = (p: string) => call(registry.baseUrl, 'GET', p);
  const execute = (body: unknown) => call(registry.baseUrl, 'POST', '/v1/skills/maya_geometry/executions?wait=30', { body });
  const publish = async (dir: string, token: string) => {
    const response = await fetch(`${registry.baseUrl}/v1/packages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' },
      body: await packPackageArchive(await readPackageDir(dir)),
    });
    return { status: response.status, body: await response.json() };
  };

  beforeAll(async () => {
    db = await createTestDatabase('seed_004_package');
    disk = await tempRoot();
    scratch = await tempRoot();
    await cp(MAYA_GEOMETRY, path.join(disk, 'dcc', 'maya-geometry'), { recursive: true });
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [disk], queuePrefix });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    await activate(registry.baseUrl, ['maya_geometry']);
    grpc = registryClient(grpcPort(registry));
    mcp = new Client({ name: 'seed-004-e2e', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${registry.baseUrl}/mcp`)));
  });

  afterAll(async () => {
    await mcp?.close().catch(() => undefined);
    grpc?.close();
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(disk, { recursive: true, force: true });
    await rm(scratch, { recursive: true, force: true });
  });

  it('shows the sidecars on the skill, the runtimes with what the probe found at registration, and seed 004 summary fields', async () => {
    const { status, body } = await get('/v1/skills/maya_geometry');
    expect(status).toBe(200);
    expect(body.runtimes.map((runtime: { name: string; state: string }) => [runtime.name, runtime.state])).toEqual([
      ['python', 'available'],
      ['json-module', 'available'],
      ['usdcat', 'degraded'],
      // The script sandbox gives a script no variable of the host's environment, so HFS is never found there.
      ['houdini-solaris', 'degraded'],
    ]);
    expect(body).toMatchObject({
      scope: 'system',
      dcc: 'maya',
      layer: 'domain',
      implicit_invocation: true,
      tool_count: 3,
      tool_names: ['create_sphere', 'bevel_edges', 'export_fbx'],
      runtime: { state: 'degraded', available: ['python', 'json-module'], degraded: ['usdcat', 'houdini-solaris'], missing: [] },
      agent_skill: { dcc: 'maya', products: ['maya', 'mayapy'] },
      prompts: [{ qualified_name: 'maya_geometry__bevel_all_edges' }],
      resources: [{ uri: 'maya-cmds://help/polySphere', mime_type: 'text/plain', path: 'resources/help/polySphere.txt' }],
      workflows: [{ name: 'sphere_then_bevel', timeout_seconds: 40, not_executable_reason: null }],
    });
    expect(body.tools.find((tool: { name: string }) => tool.name === 'create_sphere').defer_loading).toBe(true);
    // A degraded optional runtime is an info in the report, never an error: the skill registered.
    expect(body.validation).toContainEqual(
      expect.objectContaining({ severity: 'info', category: 'dependencies', message: expect.stringContaining("runtime 'usdcat'") }),
    );
  });

  it('serves the package prompt templates as MCP prompts, rendered with their arguments', async () => {
    const { prompts } = await mcp.listPrompts();
    expect(prompts).toContainEqual({
      name: 'maya_geometry__bevel_all_edges',
      title: 'bevel_all_edges',
      description: 'Bevel every selected edge with a consistent chamfer width.',
      arguments: [
        { name: 'chamfer_width', description: 'Chamfer width in Maya units.', required: true },
        { name: 'segments', description: 'Number of chamfer segments (default 2).', required: false },
      ],
    });
    const rendered = await mcp.getPrompt({ name: 'maya_geometry__bevel_all_edges', arguments: { chamfer_width: '0.25', segments: '3' } });
    expect(rendered.messages[0]?.content).toEqual({ type: 'text', text: expect.stringContaining('width=0.25 and segments=3.') });
    // The skill's own instructions stay a prompt too.
    expect(prompts.map((prompt) => prompt.name)).toContain('maya_geometry');
    const missing = mcp.getPrompt({ name: 'maya_geometry__bevel_all_edges', arguments: { segments: '3' } });
    await expect(missing).rejects.toThrow(/missing required argument chamfer_width/);
    await expect(missing).rejects.toBeInstanceOf(ProtocolError);
    await expect(mcp.getPrompt({ name: 'maya_geometry__bevel_all_edges', arguments: { chamfer_width: '1', depth: '2' } })).rejects.toThrow(
      /unknown argument depth/,
    );
  });

  it('serves the package resources over MCP resources/list and resources/read, from the stored package', async () => {
    const { resources } = await mcp.listResources();
    expect(resources).toContainEqual(
      expect.objectContaining({
        uri: 'maya-cmds://help/polySphere',
        name: 'cmds.polySphere help',
        mimeType: 'text/plain',
        description: "Output of cmds.help('polySphere') captured at skill build time.",
      }),
    );
    const read = await mcp.readResource({ uri: 'maya-cmds://help/polySphere' });
    expect(read.contents).toEqual([
      expect.objectContaining({
        uri: 'maya-cmds://help/polySphere',
        mimeType: 'text/plain',
        text: expect.stringContaining('Synopsis: polySphere'),
      }),
    ]);
    await expect(mcp.readResource({ uri: 'maya-cmds://help/nothing' })).rejects.toBeInstanceOf(ProtocolError);
  });

  it('runs a workflow as one execution: each step a tool run with arguments mapped from the input and the step before, one event stream', async () => {
    const { status, body } = await execute({ tool: 'sphere_then_bevel', input: { radius: 1, width: 0.1 } });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'SUCCEEDED',
      tool: 'sphere_then_bevel',
      attempts: 1,
      output: {
        output: { mesh: 'ball_1', beveled_edges: 1520, note: 'width 0.1, 2 segment(s)' },
        steps: { create: { name: 'ball_1', radius: 1, vertices: 382 }, bevel: { mesh: 'ball_1', beveled_edges: 1520 } },
      },
    });
    const events = await readSse(registry.baseUrl, body.id);
    expect(events.map((event) => event.type)).toEqual([
      'queued',
      'started',
      'step_started',
      'step_completed',
      'step_started',
      'step_completed',
      'succeeded',
    ]);
    expect(
      events.filter((event) => event.type === 'step_completed').map((event) => [event.data.step, event.data.tool, event.data.ok]),
    ).toEqual([
      ['create', 'create_sphere', true],
      ['bevel', 'bevel_edges', true],
    ]);
    // By its qualified name, and over gRPC, the same.
    const overGrpc = await unary(
      grpc,
      'ExecuteSkill',
      {
        name: 'maya_geometry',
        tool: 'maya_geometry__sphere_then_bevel',
        input: struct({ radius: 2, width: 0.5, segments: 1 }),
        wait_seconds: 30,
      },
      bearer(),
    );
    expect(overGrpc.response.execution).toMatchObject({ status: 'SUCCEEDED', tool: 'sphere_then_bevel' });
  });

  it("ends a workflow at the step that fails, with that step's error, and refuses input its schema does not allow", async () => {
    const { body } = await execute({ tool: 'sphere_then_bevel', input: { radius: 1, width: 0.1, prefix: 'explode' } });
    expect(body).toMatchObject({
      status: 'FAILED',
      error: { code: 'HANDLER_ERROR', details: { workflow: 'sphere_then_bevel', step: 'bevel', tool: 'bevel_edges' } },
    });
    expect(body.error.message).toMatch(/^Step 'bevel' of workflow 'sphere_then_bevel' failed: /);
    const events = await readSse(registry.baseUrl, body.id);
    expect(
      events.filter((event) => event.type.startsWith('step_')).map((event) => [event.type, event.data.step, event.data.ok ?? null]),
    ).toEqual([
      ['step_started', 'create', null],
      ['step_completed', 'create', true],
      ['step_started', 'bevel', null],
      ['step_completed', 'bevel', false],
    ]);
    expect(await execute({ tool: 'sphere_then_bevel', input: { radius: 1 } })).toMatchObject({
      status: 422,
      body: { code: 'INPUT_INVALID' },
    });
    expect(await execute({ tool: 'sphere_then_twice', input: {} })).toMatchObject({
      status: 404,
      body: { code: 'TOOL_NOT_FOUND', tools: ['create_sphere', 'bevel_edges', 'export_fbx', 'sphere_then_bevel'] },
    });
  });

  it('ranks as seed 004 says over REST, gRPC and MCP: dcc filter, layer multipliers and browse, scope by publisher, tools in hits', async () => {
    expect(await publish(await writeUsdTools(scratch, 'usd-tools'), ADMIN_TOKEN)).toMatchObject({ status: 201 });
    expect(await publish(await writeUsdTools(scratch, 'acme-usd'), PUBLISHER_TOKEN)).toMatchObject({ status: 201 });
    await activate(registry.baseUrl, ['usd_tools', 'acme_usd']);

    const sphere = (await get('/v1/search?q=sphere')).body;
    // The domain skill first; the two infrastructure skills (× 0.35) below it, equal in score, admin scope before user.
    expect(sphere.items.map((hit: { name: string; scope: string }) => [hit.name, hit.scope])).toEqual([
      ['maya_geometry', 'system'],
      ['usd_tools', 'admin'],
      ['acme_usd', 'user'],
    ]);
    expect(sphere.items[0]).toMatchObject({
      tool_count: 3,
      tool_names: ['create_sphere', 'bevel_edges', 'export_fbx'],
      dcc: 'maya',
      layer: 'domain',
      runtime: { state: 'degraded' },
    });
    expect(sphere.items[1]).toMatchObject({
      tool_count: 1,
      tool_names: ['validate'],
      dcc: 'python',
      layer: 'infrastructure',
      runtime: null,
    });

    expect((await get('/v1/search?q=sphere&dcc=maya')).body.items.map((hit: { name: string }) => hit.name)).toEqual(['maya_geometry']);
    expect((await get('/v1/search?dcc=mayapy')).body.items.map((hit: { name: string }) => hit.name)).toEqual(['maya_geometry']);
    expect((await get('/v1/search?tag=infrastructure')).body.items.map((hit: { name: string }) => hit.name)).toEqual([
      'usd_tools',
      'acme_usd',
    ]);
    expect((await get('/v1/search?q=usd-tools')).body.items[0].name).toBe('usd_tools');
    expect(await get('/v1/search?limit=5')).toMatchObject({ status: 400, body: { errors: [{ field: 'q' }] } });

    const overGrpc = await unary(grpc, 'SearchSkills', { q: 'sphere', dcc: 'maya' }, bearer());
    expect(overGrpc.response.items).toEqual([
      expect.objectContaining({
        name: 'maya_geometry',
        tool_count: 3,
        tool_names: ['create_sphere', 'bevel_edges', 'export_fbx'],
        dcc: 'maya',
        scope: 'system',
        runtime: expect.objectContaining({ state: 'degraded', degraded: ['usdcat', 'houdini-solaris'] }),
      }),
    ]);

    const overMcp = await mcp.callTool({ name: 'search_skills', arguments: { query: 'sphere', dcc: 'maya' } });
    expect((overMcp.structuredContent as { items: { name: string; tool_count: number }[] }).items).toEqual([
      expect.objectContaining({ name: 'maya_geometry', tool_count: 3 }),
    ]);
  });
});
