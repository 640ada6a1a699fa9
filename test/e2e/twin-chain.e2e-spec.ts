import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import pg from 'pg';
import { freePort, startAdapterProcess, type AdapterProcess } from '../adapters/support.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { obliterateQueue } from '../support/executions.js';
import { ADMIN_TOKEN, AGENT_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { REPO_ROOT } from '../support/skill-packages.js';
import { uniaxialBlockDeck } from '../support/block-decks.js';

const CATALOG = path.join(REPO_ROOT, 'skills');
const BLOCK_GEO = path.join(CATALOG, 'mechanical/export_mesh/examples/block.geo');

/**
 * The catalog's mechanical chain through the digital twin, as seed 000 describes it, with the real gmsh
 * and CalculiX behind their adapters: upload a geometry → export_mesh (REST) writes a mesh work product →
 * validate_stress (MCP) by id on a branch, with the constraints from the twin → a simulation_result
 * revision with provenance; main stays untouched, a missing work product fails PRECONDITION_FAILED, and
 * the earlier versions (deprecated in favour of these) keep working.
 */
describe('mechanical chain through the twin (real gmsh and CalculiX; REST and MCP)', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  const adapters: AdapterProcess[] = [];
  const clients: Client[] = [];
  const queuePrefix = `test-twin-chain-${process.pid}-${Date.now()}`;
  const admin = (method: string, p: string, body: unknown = {}) => call(registry.baseUrl, method, p, { token: ADMIN_TOKEN, body });
  const agent = (method: string, p: string, body?: unknown) => call(registry.baseUrl, method, p, { token: AGENT_TOKEN, body });

  async function connect(endpoint: string): Promise<Client> {
    const client = new Client({ name: 'twin-chain-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${registry.baseUrl}${endpoint}`), { authProvider: { token: async () => AGENT_TOKEN } }),
    );
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    db = await createTestDatabase('twin_chain');
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    const urls: string[] = [];
    for (const name of ['gmsh', 'calculix']) {
      const port = await freePort();
      adapters.push(await startAdapterProcess(name, port));
      urls.push(`${name}=http://127.0.0.1:${port}/mcp`);
    }
    const env = { TOOL_ADAPTERS: urls.join(',') };
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [CATALOG], queuePrefix, agentTokens: true, env });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env });
    // Promotion runs every declared example for real; the new versions' examples run on promotion branches seeded
    // with their twin fixtures.
    for (const [name, version] of [
      ['export_mesh', '0.1.0'],
      ['validate_stress', '0.1.0'],
      ['export_mesh', '0.2.1'],
      ['validate_stress', '1.0.1'],
    ]) {
      const promoted = await admin('POST', `/v1/admin/skills/${name}/versions/${version}/promote`, { reason: 'examples pass' });
      if (promoted.status !== 200) {
        throw new Error(`promotion of ${name} ${version} failed: ${JSON.stringify(promoted.body)}\n${await registry.describeCatalog()}`);
      }
    }
    for (const [name, version, successor] of [
      ['export_mesh', '0.1.0', 'export_mesh@0.2.1'],
      ['validate_stress', '0.1.0', 'validate_stress@1.0.1'],
    ]) {
      const deprecated = await admin('POST', `/v1/admin/skills/${name}/deprecate`, {
        version,
        reason: 'reads the model from the twin now',
        successor,
      });
      if (deprecated.status !== 200) throw new Error(`deprecation of ${name} ${version} failed: ${JSON.stringify(deprecated.body)}`);
    }
  }, 300_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await executor?.stop();
    await registry?.stop();
    for (const adapter of adapters) await adapter.kill();
    await obliterateQueue(queuePrefix);
    await pool?.end();
    await db?.drop();
  });

  it('promoted the new versions on evidence from promotion branches, never touching main', async () => {
    const history = await agent('GET', '/v1/skills/validate_stress/history');
    const promotion = history.body.items.find((event: any) => event.version === '1.0.1' && event.to === 'ACTIVE');
    expect(promotion.forced).toBe(false);
    expect(promotion.evidence.examples.every((example: any) => example.execution_status === 'SUCCEEDED')).toBe(true);
    const branches = (await pool.query(`SELECT name, purpose FROM twin_branches WHERE purpose = 'promotion'`)).rows;
    expect(branches.length).toBeGreaterThanOrEqual(3);
    const onMain = await agent('GET', '/v1/twin/branches/main/work-products');
    expect(onMain.body.items).toEqual([]);
  });

  it('runs upload → export_mesh (REST) → validate_stress (MCP) by id on a branch, with provenance, leaving main untouched', async () => {
    const geometry = await fetch(`${registry.baseUrl}/v1/twin/branches/main/work-products?kind=cad_model&name=block`, {
      method: 'POST',
      headers: { 'content-type': 'text/x-gmsh-geo', authorization: `Bearer ${AGENT_TOKEN}` },
      body: await readFile(BLOCK_GEO),
    });
    expect(geometry.status).toBe(201);
    const geometryId = ((await geometry.json()) as { id: string }).id;
    expect((await agent('POST', '/v1/twin/branches', { name: 'study' })).status).toBe(201);

    const meshed = await agent('POST', '/v1/skills/export_mesh/executions?wait=60', {
      branch: 'study',
      input: { geometry_work_product_id: geometryId, mesh_name: 'block mesh', mesh: { size_min: 2, size_max: 2 } },
    });
    expect(meshed.body).toMatchObject({ status: 'SUCCEEDED', version: '0.2.1', branch: 'study' });
    const meshId = meshed.body.output.mesh_work_product_id as string;
    const meshInp = await (
      await fetch(`${registry.baseUrl}/v1/twin/branches/study/work-products/${meshId}/content`, {
        headers: { authorization: `Bearer ${AGENT_TOKEN}` },
      })
    ).text();
    expect(meshInp).toContain('*NODE');
    await agent('PUT', `/v1/twin/branches/study/work-products/${meshId}/constraints`, {
      constraints: [{ kind: 'max_von_mises_stress', max_von_mises_mpa: 235, safety_factor: 1.5, material: 'steel_s235' }],
    });

    // Uniform 10 MPa on the top face, bottom on rollers, two corners held: 10 MPa von Mises everywhere.
    const deck = uniaxialBlockDeck(meshInp);

    const mcp = await connect('/mcp?branch=study');
    const result = await mcp.callTool({
      name: 'validate_stress',
      arguments: { work_product_id: meshId, load_case: 'top_pressure_10MPa', deck_inp: deck, regions: ['body'] },
    });
    expect(result.isError).toBeFalsy();
    const output = result.structuredContent as Record<string, any>;
    expect(output).toMatchObject({ overall_passed: true, constraints_source: 'twin', source_revision: 1, result_revision: 1 });
    expect(Math.abs(output.results[0].max_von_mises_mpa - 10) / 10).toBeLessThan(1e-4);
    const resultId = output.result_work_product_id as string;

    // Provenance: the result was written by the MCP call's execution, which read the mesh revision and
    // judged it against the mesh's constraints revision 1.
    const provenance = await agent('GET', `/v1/twin/work-products/${resultId}/revisions/1/provenance`);
    const executionId = provenance.body.written_by.execution_id as string;
    expect(provenance.body.written_by.identity).toBe(`execution:${executionId}`);
    const judgedAgainst = {
      work_product_id: meshId,
      revision: 1,
      branch: 'study',
      constraints: [{ kind: 'max_von_mises_stress', max_von_mises_mpa: 235, safety_factor: 1.5, material: 'steel_s235' }],
    };
    expect(provenance.body.written_by).toMatchObject({
      read: [{ work_product_id: meshId, revision: 1 }],
      constraints_read: [judgedAgainst],
    });
    const access = await agent('GET', `/v1/executions/${executionId}/twin`);
    expect(access.body).toMatchObject({
      branch: 'study',
      read: [{ work_product_id: meshId, revision: 1 }],
      constraints_read: [judgedAgainst],
      wrote: [{ work_product_id: resultId, branch: 'study' }],
    });
    const execution = await agent('GET', `/v1/executions/${executionId}`);
    expect(execution.body).toMatchObject({ skill: 'validate_stress', version: '1.0.1', caller: 'bot', branch: 'study' });
    const meshProvenance = await agent('GET', `/v1/twin/work-products/${meshId}/revisions/1/provenance`);
    expect(meshProvenance.body.written_by.execution_id).toBe(meshed.body.id);
    expect(meshProvenance.body.read_by.map((read: any) => read.execution_id)).toContain(executionId);

    // The result is a resource of the branch, readable by the host.
    const resource = await mcp.readResource({ uri: `twin://study/${resultId}` });
    expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({ overall_passed: true });
    const listed = await mcp.listResources();
    expect(listed.resources.map((item) => item.uri)).toEqual(
      expect.arrayContaining([`twin://study/${meshId}`, `twin://study/${resultId}`]),
    );

    // main holds only the uploaded geometry.
    const onMain = await agent('GET', '/v1/twin/branches/main/work-products');
    expect(onMain.body.items.map((item: any) => item.id)).toEqual([geometryId]);
  }, 180_000);

  it('fails PRECONDITION_FAILED naming the work product and the branch when it is not on the caller branch', async () => {
    const study = await agent('GET', '/v1/twin/branches/study/work-products?kind=mesh');
    const meshId = study.body.items[0].id as string;
    const mcp = await connect('/mcp');
    const onMain = await mcp.callTool({
      name: 'validate_stress',
      arguments: { work_product_id: meshId, load_case: 'x', deck_inp: '*INCLUDE, INPUT=mesh.inp' },
      _meta: { 'io.skill-registry/branch': 'main' },
    });
    expect(onMain.isError).toBe(true);
    const text = (onMain.content as { type: string; text: string }[]).map((part) => part.text).join(' ');
    expect(text).toContain('PRECONDITION_FAILED');
    expect(text).toContain(meshId);
    expect(text).toContain('main');
    const unknown = await mcp.callTool({
      name: 'validate_stress',
      arguments: { work_product_id: meshId, load_case: 'x', deck_inp: 'x' },
      _meta: { 'io.skill-registry/branch': 'nowhere' },
    });
    expect(unknown.isError).toBe(true);
    expect((unknown.content as { text: string }[])[0]?.text).toContain('TWIN_BRANCH_NOT_FOUND');
    await expect(mcp.readResource({ uri: `twin://main/${meshId}` })).rejects.toThrow(/not found/i);
  });

  it('keeps the previous versions working for callers that pass the model inline, with the successor named', async () => {
    const definition = JSON.parse(await readFile(path.join(CATALOG, 'previous/mechanical/validate_stress/definition.json'), 'utf8'));
    const old = await agent('POST', '/v1/skills/validate_stress/executions?wait=60', {
      version: '0.1.0',
      input: definition.examples[0].input,
    });
    expect(old.body).toMatchObject({ status: 'SUCCEEDED', version: '0.1.0' });
    expect(old.body.warnings.join(' ')).toContain('validate_stress@1.0.1');
    expect(old.headers.get('link')).toContain('successor-version');
  });
});
