import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { obliterateQueue } from '../support/executions.js';
import { bearer, grpcPort, registryClient, unary } from '../support/grpc.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';

/** The registry stores every version's files; executors run exactly those bytes, never the disk copy. */
describe('executors run the stored package, not the files on disk', () => {
  let db: TestDatabase;
  let root: string;
  let cacheDir: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor | undefined;
  const queuePrefix = `test-packages-${process.pid}-${Date.now()}`;
  const admin = (p: string, body: unknown = {}) => call(registry.baseUrl, 'POST', p, { token: ADMIN_TOKEN, body });
  const execute = (name: string, text: string) =>
    call(registry.baseUrl, 'POST', `/v1/skills/${name}/executions?wait=20`, { body: { input: { text } } });

  beforeAll(async () => {
    db = await createTestDatabase('package_store');
    root = await tempRoot();
    cacheDir = await mkdtemp(path.join(tmpdir(), 'executor-cache-'));
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root], queuePrefix });
  });

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
    await rm(cacheDir, { recursive: true, force: true });
  });

  it('keeps running the promoted code after handler.ts is edited on disk, and after the package is deleted', async () => {
    const dir = await writeEchoSkill(root);
    expect((await admin('/v1/admin/skills', { path: 'demo/echo_text' })).status).toBe(201);
    const stored = await new pg.Client({ connectionString: db.url });
    await stored.connect();
    const version = (await call(registry.baseUrl, 'GET', '/v1/skills/echo_text')).body;
    const packageRow = await stored.query(`SELECT file_count FROM packages WHERE content_hash = $1`, [version.content_hash]);
    await stored.end();
    expect(packageRow.rows[0]).toEqual({ file_count: 5 });

    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env: { PACKAGE_CACHE_DIR: cacheDir } });
    expect((await admin('/v1/admin/skills/echo_text/versions/1.0.0/promote', { reason: 'examples pass' })).status).toBe(200);

    // Tamper: the same version's handler now answers something else on disk.
    const handler = path.join(dir, 'handler.ts');
    await writeFile(handler, (await readFile(handler, 'utf8')).replace('text: input.text,', "text: 'TAMPERED',"));
    await executor.stop();
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env: { PACKAGE_CACHE_DIR: cacheDir } });
    const afterEdit = await execute('echo_text', 'stored');
    expect(afterEdit).toMatchObject({ status: 200, body: { status: 'SUCCEEDED', output: { text: 'stored', length: 6 } } });

    // Rediscovery refuses the changed package under the same version and leaves the stored one as it is.
    const rediscovered = await admin('/v1/admin/discover');
    expect(rediscovered.body.packages[0]).toMatchObject({ outcome: 'refused', message: expect.stringContaining('VERSION_IMMUTABLE') });
    expect((await call(registry.baseUrl, 'GET', '/v1/skills/echo_text')).body.content_hash).toBe(version.content_hash);

    // The package's files are gone from disk entirely; a fresh cache still gets them from the store.
    await rm(root, { recursive: true, force: true });
    await rm(cacheDir, { recursive: true, force: true });
    await executor.stop();
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env: { PACKAGE_CACHE_DIR: cacheDir } });
    const afterDelete = await execute('echo_text', 'from the store');
    expect(afterDelete).toMatchObject({ status: 200, body: { status: 'SUCCEEDED', output: { text: 'from the store' } } });
  });

  it('validates a disk package from its own files only, as executors will run it: an import from outside it is an error', async () => {
    const outside = await tempRoot();
    await mkdir(path.join(outside, 'shared'), { recursive: true });
    await writeFile(path.join(outside, 'shared', 'upper.ts'), 'export const upper = (text: string) => text.toUpperCase();\n');
    await writeEchoSkill(outside, {
      name: 'echo_outside',
      handlerSource: `import { SkillBase } from '@skill-registry/sdk';
import { upper } from '../../shared/upper.js';
import { EchoInput, EchoOutput } from './schema.js';
export class EchoHandler extends SkillBase<typeof EchoInput, typeof EchoOutput> {
  static readonly inputSchema = EchoInput;
  static readonly outputSchema = EchoOutput;
  async execute(input: { text: string }) {
    return { text: upper(input.text), length: input.text.length };
  }
}
`,
    });
    const scoped = await startRegistry({ databaseUrl: db.url, skillPaths: [outside], queuePrefix });
    try {
      const version = (await call(scoped.baseUrl, 'GET', '/v1/skills/echo_outside')).body;
      expect(version).toMatchObject({ status: 'DRAFT' });
      const error = version.validation.find((issue: { severity: string }) => issue.severity === 'error');
      expect(error).toMatchObject({ file: 'handler.ts', message: expect.stringContaining('upper') });
      expect(JSON.stringify(version)).not.toMatch(/skill-intake-/);
    } finally {
      await scoped.stop();
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('shows no server path in any public answer (REST views, health, search, problems, gRPC)', async () => {
    const disk = await tempRoot();
    await writeEchoSkill(disk, { name: 'echo_paths' });
    await writeEchoSkill(disk, { name: 'echo_broken', schemaSource: 'export const Nothing = 1;\n' });
    const scoped = await startRegistry({ databaseUrl: db.url, skillPaths: [disk], queuePrefix });
    const client = registryClient(grpcPort(scoped));
    try {
      const answers = [
        await call(scoped.baseUrl, 'GET', '/v1/skills/echo_paths'),
        await call(scoped.baseUrl, 'GET', '/v1/skills/echo_paths/versions'),
        await call(scoped.baseUrl, 'GET', '/v1/skills/echo_broken/versions/1.0.0'),
        await call(scoped.baseUrl, 'GET', '/v1/skills?status=DRAFT'),
        await call(scoped.baseUrl, 'GET', '/v1/health'),
        await call(scoped.baseUrl, 'GET', '/v1/search?q=echo'),
        await call(scoped.baseUrl, 'GET', '/v1/skills/echo_paths/versions/1.0.0/files'),
      ].map((answer) => answer.body);
      expect(answers[4].drafts.map((draft: { name: string }) => draft.name)).toContain('echo_broken');
      const grpcAnswers = [
        (await unary(client, 'GetSkill', { name: 'echo_paths' }, bearer())).response,
        (await unary(client, 'GetHealth', {}, bearer())).response,
      ];
      for (const answer of [...answers, ...grpcAnswers]) {
        const text = JSON.stringify(answer);
        expect(text).not.toContain(disk);
        expect(text).not.toContain('package_path');
      }
    } finally {
      client.close();
      await scoped.stop();
      await rm(disk, { recursive: true, force: true });
    }
  });
});
