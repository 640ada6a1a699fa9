import { rm } from 'node:fs/promises';
import { status as grpcStatus } from '@grpc/grpc-js';
import { packPackageArchive, readPackageDir } from '../../libs/package-store/src/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { obliterateQueue } from '../support/executions.js';
import { bearer, failure, grpcPort, registryClient, struct, unary, type RegistryClient } from '../support/grpc.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot, writeEchoSkill, type EchoSkillOptions } from '../support/skill-packages.js';

/** Versions that evolve: callers pin ranges over REST and gRPC. */
describe('versions: ranges', () => {
  let db: TestDatabase;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  let client: RegistryClient;
  const queuePrefix = `test-versions-${process.pid}-${Date.now()}`;
  const admin = (method: string, p: string, body: unknown = {}) => call(registry.baseUrl, method, p, { token: ADMIN_TOKEN, body });

  beforeAll(async () => {
    db = await createTestDatabase('versions');
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [await tempRoot()], queuePrefix });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    client = registryClient(grpcPort(registry));
  });

  afterAll(async () => {
    client?.close();
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
  });

  async function publish(options: EchoSkillOptions): Promise<{ status: number; body: any }> {
    const dir = await tempRoot();
    const archive = await packPackageArchive(await readPackageDir(await writeEchoSkill(dir, options)));
    await rm(dir, { recursive: true, force: true });
    const response = await fetch(`${registry.baseUrl}/v1/packages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/gzip' },
      body: archive,
    });
    return { status: response.status, body: await response.json() };
  }
  const promote = (version: string) => admin('POST', `/v1/admin/skills/echo_ranged/versions/${version}/promote`, {});
  const runs = async (version: string) =>
    call(registry.baseUrl, 'POST', '/v1/skills/echo_ranged/executions?wait=20', { body: { input: { text: 'v' }, version } });

  it('resolves a range to the highest ACTIVE version in it, moving when a new one is promoted', async () => {
    for (const version of ['1.0.0', '1.1.0']) {
      expect((await publish({ name: 'echo_ranged', version })).status).toBe(201);
      expect((await promote(version)).status).toBe(200);
    }
    expect(await runs('^1.0')).toMatchObject({ status: 200, body: { status: 'SUCCEEDED', version: '1.1.0' } });
    expect(await runs('1.0.0')).toMatchObject({ status: 200, body: { version: '1.0.0' } });

    expect((await publish({ name: 'echo_ranged', version: '1.2.0' })).status).toBe(201);
    expect(await runs('^1.0')).toMatchObject({ body: { version: '1.1.0' } });
    expect((await promote('1.2.0')).status).toBe(200);
    expect(await runs('^1.0')).toMatchObject({ body: { version: '1.2.0' } });
    expect(await runs('~1.1')).toMatchObject({ body: { version: '1.1.0' } });

    // A DEPRECATED version is used only when nothing ACTIVE is in range.
    expect((await admin('POST', '/v1/admin/skills/echo_ranged/deprecate', { version: '1.2.0', reason: 'test' })).status).toBe(200);
    expect(await runs('^1.0')).toMatchObject({ body: { version: '1.1.0' } });
    expect(await runs('>=1.2 <2')).toMatchObject({
      status: 200,
      body: { version: '1.2.0', warnings: [expect.stringContaining('deprecated')] },
    });
  });

  it('answers 404 naming the versions that exist when nothing is in range, and 400 for a malformed range', async () => {
    const none = await runs('^2');
    expect(none).toMatchObject({ status: 404, body: { code: 'SKILL_NOT_FOUND', versions: expect.arrayContaining(['1.1.0 (ACTIVE)']) } });
    expect(none.body.detail).toMatch(/no executable version in range \^2; it has 1\.2\.0 \(DEPRECATED\), 1\.1\.0 \(ACTIVE\)/);
    expect(await runs('latest')).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  });

  it('accepts the same ranges over gRPC, naming the resolved version', async () => {
    const answer = await unary(
      client,
      'ExecuteSkill',
      { name: 'echo_ranged', input: struct({ text: 'g' }), version: '~1.0', wait_seconds: 20 },
      bearer(),
    );
    expect(answer.response.execution).toMatchObject({ status: 'SUCCEEDED', version: '1.0.0' });
    const missing = await failure(
      unary(client, 'ExecuteSkill', { name: 'echo_ranged', input: struct({ text: 'g' }), version: '^3' }, bearer()),
    );
    expect(missing.code).toBe(grpcStatus.NOT_FOUND);
  });
});
