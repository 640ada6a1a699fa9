import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { serviceEntry } from '../../scripts/service-entries.mjs';
import { freePort, waitUntil } from '../adapters/support.js';
import { startRegistryProcess, type RegistryProcess } from '../drills/support.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { obliterateQueue } from '../support/executions.js';
import { bearer, reflect, registryClient, unary } from '../support/grpc.js';
import { ADMIN_TOKEN, call } from '../support/registry.js';
import { REPO_ROOT } from '../support/skill-packages.js';

const SKILL = 'run_circuit_sim';

/**
 * The services as npm start, the Dockerfiles and the drills run them: each from its bundle (scripts/bundle.mjs, one
 * file per process), where the other suites load the registry's modules in Jest. What bundling can break is what a
 * module finds next to its own file at run time — the protos, Swagger UI's assets, the handler sandbox's runtime, the
 * sandbox compiler, optional framework parts — so each is reached here through a real client: the registry's
 * discovery (every package's handler inspected in the sandbox), its docs, gRPC with reflection, MCP, and a promotion
 * whose examples run through the executor's bundle and the spice adapter's bundle (ngspice).
 */
describe('the services run from their bundles', () => {
  let db: TestDatabase;
  let adapter: ChildProcess;
  let registry: RegistryProcess;
  let executor: RunningExecutor;
  let grpcPort: number;
  const queuePrefix = `test-bundles-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase('bundles');
    const adapterPort = await freePort();
    adapter = spawn(process.execPath, [serviceEntry('spice')], {
      cwd: REPO_ROOT,
      env: { ...process.env, HOST: '127.0.0.1', PORT: String(adapterPort), LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    const healthy = await waitUntil(
      () =>
        fetch(`http://127.0.0.1:${adapterPort}/healthz`).then(
          (response) => response.ok,
          () => false,
        ),
      20_000,
      100,
    );
    expect(healthy).toBe(true);
    const env = { TOOL_ADAPTERS: `spice=http://127.0.0.1:${adapterPort}/mcp` };
    grpcPort = await freePort();
    registry = await startRegistryProcess({
      databaseUrl: db.url,
      skillPaths: [path.join(REPO_ROOT, 'skills')],
      queuePrefix,
      env: { ...env, GRPC_PORT: String(grpcPort) },
    });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env });
  }, 90_000);

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    adapter?.kill('SIGKILL');
    await obliterateQueue(queuePrefix);
    await db?.drop();
  });

  it("the registry's bundle stores every disk package, each handler inspected in the sandbox", async () => {
    const ready = await call(registry.baseUrl, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    const catalog = ready.body.details.catalog;
    expect(catalog.refused).toBe(0);
    expect(catalog.stored).toBe(catalog.packages);
    expect(catalog.packages).toBeGreaterThanOrEqual(12);
  });

  it('serves the OpenAPI document and the docs page with its assets', async () => {
    const document = await call(registry.baseUrl, 'GET', '/docs-json');
    expect(document.status).toBe(200);
    expect(document.body.paths['/v1/skills']).toBeDefined();
    const css = await fetch(`${registry.baseUrl}/docs/swagger-ui.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toContain('text/css');
    expect((await css.text()).length).toBeGreaterThan(1000);
  });

  it('answers gRPC, with reflection', async () => {
    const client = registryClient(grpcPort);
    try {
      const { response } = await unary(client, 'GetSkill', { name: SKILL }, bearer());
      expect(response.skill.name).toBe(SKILL);
    } finally {
      client.close();
    }
    // Reflection (its own protos, read next to its code) describes the services as grpcurl needs them.
    const { services, files } = await reflect(grpcPort, 'skillregistry.v1.SkillRegistry');
    expect(services).toEqual(expect.arrayContaining(['skillregistry.v1.SkillRegistry', 'skillregistry.v1.Twin']));
    expect(files.some((file) => file.service?.some((service) => service.name === 'SkillRegistry'))).toBe(true);
  });

  it('serves its skills as MCP tools to an SDK client', async () => {
    const client = new Client({ name: 'bundles-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${registry.baseUrl}/mcp`)));
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it("runs a skill end to end through the executor's and the spice adapter's bundles", async () => {
    const definition = JSON.parse(await readFile(path.join(REPO_ROOT, 'skills/simulation', SKILL, 'definition.json'), 'utf8'));
    // Promotion runs the skill's declared examples through the executor: no force.
    const promoted = await call(registry.baseUrl, 'POST', `/v1/admin/skills/${SKILL}/versions/${definition.version}/promote`, {
      token: ADMIN_TOKEN,
      body: { reason: 'bundles e2e' },
    });
    expect(promoted.body).toMatchObject({ status: 'ACTIVE' });
    const run = await call(registry.baseUrl, 'POST', `/v1/skills/${SKILL}/executions?wait=60`, {
      body: { input: definition.examples[0].input },
    });
    expect(run.body).toMatchObject({ status: 'SUCCEEDED' });
    expect(executor.child.exitCode).toBeNull();
  }, 90_000);
});
