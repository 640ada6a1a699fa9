import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, EXECUTION_SKILLS_ROOT, obliterateQueue } from '../support/executions.js';
import { bearer, grpcPort, registryClient, unary, type RegistryClient } from '../support/grpc.js';
import { call, startRegistry, type RunningRegistry } from '../support/registry.js';

const METRICS_TOKEN = 'test-metrics-token-1';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/** GET /metrics on the registry and the executor: Prometheus text, bounded labels, behind METRICS_TOKEN. */
describe('Prometheus metrics', () => {
  let db: TestDatabase;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  let client: RegistryClient;
  const queuePrefix = `test-metrics-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase('metrics');
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [EXECUTION_SKILLS_ROOT], queuePrefix, env: { METRICS_TOKEN } });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env: { METRICS_TOKEN } });
    client = registryClient(grpcPort(registry));
    await activate(registry.baseUrl, ['quick_noop', 'bad_output']);
  });

  afterAll(async () => {
    client?.close();
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
  });

  const scrape = async (url: string, token: string | null = METRICS_TOKEN) => {
    const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
  };
  const sample = (text: string, name: string, labels: Record<string, string>) =>
    text
      .split('\n')
      .filter((line) => line.startsWith(`${name}{`))
      .find((line) => Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`)));

  it('counts requests of every transport, catalog states and executions by outcome, without ids', async () => {
    expect((await call(registry.baseUrl, 'GET', '/v1/skills')).status).toBe(200);
    expect((await call(registry.baseUrl, 'GET', '/v1/skills/no_such_skill')).status).toBe(404);
    await unary(client, 'ListSkills', {}, bearer());
    await expect(unary(client, 'GetSkill', { name: 'no_such_skill' }, bearer())).rejects.toMatchObject({ code: 5 });
    const ok = await call(registry.baseUrl, 'POST', '/v1/skills/quick_noop/executions?wait=20', { body: { input: { marker: 'metrics' } } });
    expect(ok.body.status).toBe('SUCCEEDED');
    const bad = await call(registry.baseUrl, 'POST', '/v1/skills/bad_output/executions?wait=20', {
      body: { input: { marker: '/tmp/metrics-e2e-bad-output' } },
    });
    expect(bad.body.status).toBe('FAILED');

    const fromRegistry = await scrape(`${registry.baseUrl}/metrics`);
    expect(fromRegistry.status).toBe(200);
    expect(fromRegistry.type).toMatch(/^text\/plain/);
    expect(
      sample(fromRegistry.text, 'skill_registry_requests_total', { transport: 'rest', route: '/v1/skills', method: 'GET', status: '200' }),
    ).toBeDefined();
    expect(sample(fromRegistry.text, 'skill_registry_requests_total', { route: '/v1/skills/:name', status: '404' })).toBeDefined();
    expect(sample(fromRegistry.text, 'skill_registry_requests_total', { transport: 'grpc', status: 'OK' })).toBeDefined();
    // Every RPC by its outcome, a failed one by its stable code; REST requests never under the gRPC transport.
    expect(
      sample(fromRegistry.text, 'skill_registry_requests_total', { transport: 'grpc', route: 'getSkill', status: 'SKILL_NOT_FOUND' }),
    ).toMatch(/ 1$/);
    expect(fromRegistry.text.split('\n').filter((line) => line.includes('transport="grpc"') && line.includes('method="GET"'))).toEqual([]);
    expect(sample(fromRegistry.text, 'skill_registry_request_duration_seconds_bucket', { transport: 'rest' })).toBeDefined();
    expect(sample(fromRegistry.text, 'skill_registry_versions', { status: 'ACTIVE' })).toMatch(/ 2$/);
    expect(fromRegistry.text).toContain('process_cpu_seconds_total');
    // The registry's one pool: connected (the catalog and the executions used it), nothing waiting, none refused.
    expect(sample(fromRegistry.text, 'skill_database_connections', { state: 'idle' })).toMatch(/ [1-9]\d*$/);
    expect(sample(fromRegistry.text, 'skill_database_pool_waiting', {})).toMatch(/ 0$/);
    expect(sample(fromRegistry.text, 'skill_database_pool_exhausted_total', {})).toMatch(/ 0$/);
    expect(fromRegistry.text).not.toMatch(UUID);

    const fromExecutor = await scrape(`http://127.0.0.1:${executor.port}/metrics`);
    expect(fromExecutor.status).toBe(200);
    expect(sample(fromExecutor.text, 'skill_executions_total', { skill: 'quick_noop', status: 'SUCCEEDED' })).toMatch(/ 1$/);
    expect(
      sample(fromExecutor.text, 'skill_executions_total', { skill: 'bad_output', status: 'FAILED', error_code: 'OUTPUT_INVALID' }),
    ).toMatch(/ 1$/);
    expect(sample(fromExecutor.text, 'skill_execution_attempts_total', { skill: 'quick_noop' })).toBeDefined();
    expect(sample(fromExecutor.text, 'skill_execution_duration_seconds_count', { skill: 'quick_noop' })).toMatch(/ 1$/);
    expect(fromExecutor.text).toMatch(/skill_queue_jobs\{[^}]*state="waiting"/);
    expect(fromExecutor.text).toMatch(/skill_queue_oldest_queued_seconds\{[^}]*\} 0/);
    expect(sample(fromExecutor.text, 'skill_database_connections', { state: 'busy' })).toBeDefined();
    expect(sample(fromExecutor.text, 'skill_database_pool_exhausted_total', {})).toMatch(/ 0$/);
    expect(fromExecutor.text).not.toMatch(UUID);
  });

  it('needs METRICS_TOKEN when it is set, on both processes', async () => {
    expect((await scrape(`${registry.baseUrl}/metrics`, null)).status).toBe(401);
    expect((await scrape(`${registry.baseUrl}/metrics`, 'wrong-token-123')).status).toBe(401);
    expect((await scrape(`http://127.0.0.1:${executor.port}/metrics`, null)).status).toBe(401);
  });
});
