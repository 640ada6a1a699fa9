import { rm } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import tar from 'tar-stream';
import { Readable } from 'node:stream';
import { manifestHash, manifestOf, packPackageArchive, readPackageArchive, readPackageDir } from '#package-store/index.js';
import { status } from '@grpc/grpc-js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { bearer, failure, grpcPort, registryClient, unary } from '../support/grpc.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { obliterateQueue } from '../support/executions.js';
import { ADMIN_TOKEN, AGENT_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';

/** POST /v1/packages: publish from a directory that is gone before the package runs. */
describe('publishing packages over REST', () => {
  let db: TestDatabase;
  let emptyRoot: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor | undefined;
  let pool: pg.Pool;
  const queuePrefix = `test-publish-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase('publish');
    emptyRoot = await tempRoot();
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [emptyRoot], queuePrefix, agentTokens: true });
    pool = new pg.Pool({ connectionString: db.url, max: 1 });
  });

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await pool?.end();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(emptyRoot, { recursive: true, force: true });
  });

  const publish = async (archive: Buffer, query = '', token = ADMIN_TOKEN) => {
    const response = await fetch(`${registry.baseUrl}/v1/packages${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' },
      body: archive,
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const stored = async () =>
    (await pool.query(`SELECT (SELECT count(*) FROM skill_versions)::int AS versions, (SELECT count(*) FROM packages)::int AS packages`))
      .rows[0];

  /** A package written to a temporary directory, packed, and the directory deleted. */
  async function archiveOf(options: Parameters<typeof writeEchoSkill>[1] = {}): Promise<Buffer> {
    const root = await tempRoot();
    const dir = await writeEchoSkill(root, options);
    const archive = await packPackageArchive(await readPackageDir(dir));
    await rm(root, { recursive: true, force: true });
    return archive;
  }

  it('publishes (201), republishes the same content idempotently (200), refuses other content under the version (409)', async () => {
    const archive = await archiveOf({ name: 'echo_pub' });
    expect(await publish(archive, '', AGENT_TOKEN)).toMatchObject({ status: 403 });
    const dry = await publish(archive, '?dry_run=true');
    expect(dry).toMatchObject({ status: 200, body: { outcome: 'valid', name: 'echo_pub', version: '1.0.0' } });
    expect(await stored()).toEqual({ versions: 0, packages: 0 });
    const first = await publish(archive);
    expect(first).toMatchObject({ status: 201, body: { outcome: 'new', version: { name: 'echo_pub', status: 'REGISTERED' } } });
    expect(first.body.version.content_hash).toBe(dry.body.content_hash);
    expect(await publish(archive)).toMatchObject({ status: 200, body: { outcome: 'unchanged' } });
    const changed = await archiveOf({ name: 'echo_pub', definition: { description: 'Another description of the echo skill.' } });
    expect(await publish(changed)).toMatchObject({ status: 409, body: { code: 'VERSION_IMMUTABLE' } });
    expect(await stored()).toEqual({ versions: 1, packages: 1 });
  });

  it('serves the stored package back: its files with sha256, and the archive with the content hash as ETag', async () => {
    const version = (await call(registry.baseUrl, 'GET', '/v1/skills/echo_pub', { token: AGENT_TOKEN })).body;
    const files = await call(registry.baseUrl, 'GET', '/v1/skills/echo_pub/versions/1.0.0/files', { token: AGENT_TOKEN });
    expect(files).toMatchObject({ status: 200, body: { content_hash: version.content_hash } });
    expect(files.body.files.map((file: { path: string }) => file.path)).toEqual([
      'SKILL.md',
      'definition.json',
      'handler.spec.ts',
      'handler.ts',
      'schema.ts',
    ]);
    expect(files.body.files[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    const headers = { authorization: `Bearer ${AGENT_TOKEN}` };
    const archive = await fetch(`${registry.baseUrl}/v1/skills/echo_pub/versions/1.0.0/package`, { headers });
    expect(archive.status).toBe(200);
    expect(archive.headers.get('etag')).toBe(`"${version.content_hash}"`);
    expect(archive.headers.get('cache-control')).toContain('immutable');
    const unpacked = await readPackageArchive(Readable.from([Buffer.from(await archive.arrayBuffer())]));
    expect(manifestHash(manifestOf(unpacked))).toBe(version.content_hash);
    const again = await fetch(`${registry.baseUrl}/v1/skills/echo_pub/versions/1.0.0/package`, {
      headers: { ...headers, 'if-none-match': `"${version.content_hash}"` },
    });
    expect(again.status).toBe(304);
    expect((await call(registry.baseUrl, 'GET', '/v1/skills/echo_pub/versions/9.9.9/files', { token: AGENT_TOKEN })).status).toBe(404);
  });

  it('publishes over gRPC with the same rules: new, unchanged, INVALID_ARGUMENT with the report, PERMISSION_DENIED for agents', async () => {
    const client = registryClient(grpcPort(registry));
    try {
      const archive = await archiveOf({ name: 'echo_grpc' });
      await expect(unary(client, 'PublishPackage', { archive }, bearer(AGENT_TOKEN))).rejects.toMatchObject({
        code: status.PERMISSION_DENIED,
      });
      const dry = await unary(client, 'PublishPackage', { archive, dry_run: true }, bearer(ADMIN_TOKEN));
      expect(dry.response).toMatchObject({ outcome: 'valid', content_hash: expect.stringMatching(/^sha256:/) });
      const first = await unary(client, 'PublishPackage', { archive }, bearer(ADMIN_TOKEN));
      expect(first.response).toMatchObject({
        outcome: 'new',
        version: { name: 'echo_grpc', status: 'REGISTERED' },
        content_hash: dry.response.content_hash,
      });
      expect((await unary(client, 'PublishPackage', { archive }, bearer(ADMIN_TOKEN))).response.outcome).toBe('unchanged');
      const broken = await archiveOf({ name: 'echo_grpc_broken', definition: { input_schema: 'schema.Missing' } });
      const refused = await failure(unary(client, 'PublishPackage', { archive: broken }, bearer(ADMIN_TOKEN)));
      expect(refused).toMatchObject({ code: status.INVALID_ARGUMENT, errorCode: 'PACKAGE_INVALID' });
      expect(refused.status?.fieldViolations.length).toBeGreaterThan(0);
      const notGzip = await failure(unary(client, 'PublishPackage', { archive: Buffer.from('nope') }, bearer(ADMIN_TOKEN)));
      expect(notGzip).toMatchObject({ code: status.INVALID_ARGUMENT, errorCode: 'ARCHIVE_REJECTED' });
    } finally {
      client.close();
    }
  });

  it('refuses an invalid package with 422 and the full report, storing nothing', async () => {
    const broken = await archiveOf({ name: 'echo_broken', definition: { input_schema: 'schema.Missing' } });
    const before = await stored();
    const answer = await publish(broken);
    expect(answer).toMatchObject({ status: 422, body: { code: 'PACKAGE_INVALID' } });
    expect(answer.body.report.some((issue: { severity: string }) => issue.severity === 'error')).toBe(true);
    expect(await stored()).toEqual(before);
  });

  it('refuses text Postgres cannot store (a lone surrogate, a NUL) with 422 naming the field, storing nothing', async () => {
    const before = await stored();
    const cases = [
      { description: 'Echoes \ud800 a lone surrogate.' },
      { tags: ['ok', 'nul\u0000tag'] },
      { examples: [{ input: { text: 'a\udfff' }, output: { text: 'a\udfff', length: 2 } }] },
    ];
    for (const [index, definition] of cases.entries()) {
      const answer = await publish(await archiveOf({ name: `echo_text_${index}`, definition }));
      expect(answer).toMatchObject({ status: 422, body: { code: 'PACKAGE_INVALID' } });
      const finding = answer.body.report.find((issue: { message: string }) => /cannot be stored/.test(issue.message));
      expect(finding).toMatchObject({
        severity: 'error',
        file: 'definition.json',
        path: expect.stringMatching(/^\/(description|tags\/1|examples\/0\/input\/text)$/),
      });
    }
    expect(await stored()).toEqual(before);
  });

  it('refuses hostile archives with 4xx naming the entry, storing nothing', async () => {
    const before = await stored();
    const pack = tar.pack();
    const chunks: Buffer[] = [];
    pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
    const ended = new Promise<void>((resolve) => pack.on('end', () => resolve()));
    pack.entry({ name: 'definition.json' }, '{}');
    pack.entry({ name: 'evil', type: 'symlink', linkname: '/etc/passwd' });
    pack.finalize();
    await ended;
    const symlink = await publish(gzipSync(Buffer.concat(chunks)));
    expect(symlink).toMatchObject({ status: 400, body: { code: 'ARCHIVE_REJECTED', entry: 'evil' } });
    expect(await publish(Buffer.from('not gzip at all'))).toMatchObject({ status: 400, body: { code: 'ARCHIVE_REJECTED' } });
    const bomb = await publish(gzipSync(Buffer.alloc(40 * 1024 * 1024)));
    expect(bomb.status).toBe(413);
    expect(await stored()).toEqual(before);
  });

  it('runs the published package on an executor that has no skill files, and a rescan does not archive it', async () => {
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    const promoted = await call(registry.baseUrl, 'POST', '/v1/admin/skills/echo_pub/versions/1.0.0/promote', {
      token: ADMIN_TOKEN,
      body: { reason: 'examples pass' },
    });
    expect(promoted).toMatchObject({ status: 200, body: { status: 'ACTIVE' } });
    const run = await call(registry.baseUrl, 'POST', '/v1/skills/echo_pub/executions?wait=20', {
      token: AGENT_TOKEN,
      body: { input: { text: 'published' } },
    });
    expect(run).toMatchObject({ status: 200, body: { status: 'SUCCEEDED', output: { text: 'published', length: 9 } } });
    await call(registry.baseUrl, 'POST', '/v1/admin/discover', { token: ADMIN_TOKEN });
    expect((await call(registry.baseUrl, 'GET', '/v1/skills/echo_pub', { token: AGENT_TOKEN })).body.status).toBe('ACTIVE');
  });
});
