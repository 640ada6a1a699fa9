import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { status as grpcStatus } from '@grpc/grpc-js';
import { packPackageArchive, readPackageDir } from '#package-store/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { eventually, obliterateQueue } from '../support/executions.js';
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

  describe('dependencies', () => {
    const get = (p: string) => call(registry.baseUrl, 'GET', p);
    const promoteOf = (name: string, version: string) => admin('POST', `/v1/admin/skills/${name}/versions/${version}/promote`, {});

    it('records a missing dependency as pending everywhere, and promotion needs it ACTIVE in range', async () => {
      const user = await publish({ name: 'dep_user', definition: { depends_on: [{ name: 'dep_base', range: '^1' }] } });
      expect(user).toMatchObject({ status: 201, body: { version: { pending_dependencies: [{ name: 'dep_base', range: '^1' }] } } });
      expect((await get('/v1/skills/dep_user')).body).toMatchObject({
        depends_on: [{ name: 'dep_base', range: '^1' }],
        pending_dependencies: [{ name: 'dep_base', range: '^1' }],
      });
      const listed = (await get('/v1/skills?q=dep_user')).body.items[0];
      expect(listed.pending_dependencies).toEqual([{ name: 'dep_base', range: '^1' }]);
      expect((await get('/v1/search?q=dep_user')).body.items[0].pending_dependencies).toEqual([{ name: 'dep_base', range: '^1' }]);
      const grpcView = await unary(client, 'GetSkill', { name: 'dep_user' }, bearer());
      expect(grpcView.response.skill.pending_dependencies).toEqual([{ name: 'dep_base', range: '^1' }]);

      const refused = await promoteOf('dep_user', '1.0.0');
      expect(refused).toMatchObject({ status: 409, body: { code: 'PROMOTION_EVIDENCE_FAILED' } });
      expect(refused.body.failures).toContain('dependency dep_base has no ACTIVE version in range ^1');

      expect((await publish({ name: 'dep_base' })).status).toBe(201);
      expect((await get('/v1/skills/dep_user')).body.pending_dependencies).toEqual([]);
      expect((await promoteOf('dep_user', '1.0.0')).status).toBe(409);
      expect((await promoteOf('dep_base', '1.0.0')).status).toBe(200);
      expect((await promoteOf('dep_user', '1.0.0')).status).toBe(200);
    });

    it('refuses a version that closes a cycle, naming it, and stores nothing', async () => {
      const cyclic = await publish({ name: 'dep_base', version: '1.1.0', definition: { depends_on: [{ name: 'dep_user' }] } });
      expect(cyclic).toMatchObject({ status: 422, body: { code: 'PACKAGE_INVALID' } });
      expect(cyclic.body.report).toContainEqual(
        expect.objectContaining({
          severity: 'error',
          category: 'dependencies',
          path: '/depends_on/0',
          message: 'dependency cycle: dep_base → dep_user → dep_base',
        }),
      );
      expect((await get('/v1/skills/dep_base/versions')).body.items.map((v: { version: string }) => v.version)).toEqual(['1.0.0']);
    });

    it('lists dependents (REST, gRPC, beside usage) and refuses a deprecation that strands them unless forced with a reason', async () => {
      const expected = [{ name: 'dep_user', version: '1.0.0', status: 'ACTIVE', range: '^1', satisfied_by: ['1.0.0'] }];
      expect((await get('/v1/skills/dep_base/dependents')).body).toEqual({ skill: 'dep_base', items: expected });
      expect((await get('/v1/skills/dep_base/usage')).body.dependents).toEqual(expected);
      expect((await unary(client, 'ListDependents', { name: 'dep_base' }, bearer())).response).toEqual({
        skill: 'dep_base',
        items: expected,
      });

      const refused = await admin('POST', '/v1/admin/skills/dep_base/deprecate', { reason: 'replaced' });
      expect(refused).toMatchObject({ status: 409, body: { code: 'DEPENDENTS_EXIST', dependents: ['dep_user@1.0.0 (^1)'] } });
      const overGrpc = await failure(unary(client, 'DeprecateSkill', { name: 'dep_base', reason: 'replaced' }, bearer(ADMIN_TOKEN)));
      expect(overGrpc.code).toBe(grpcStatus.FAILED_PRECONDITION);
      expect((await get('/v1/skills/dep_base')).body.status).toBe('ACTIVE');

      const forced = await admin('POST', '/v1/admin/skills/dep_base/deprecate', { reason: 'replaced by dep_base_two', force: true });
      expect(forced.status).toBe(200);
      const event = (await get('/v1/skills/dep_base/history')).body.items.at(-1);
      expect(event).toMatchObject({
        to: 'DEPRECATED',
        forced: true,
        reason: 'replaced by dep_base_two',
        evidence: { dependents: ['dep_user@1.0.0 (^1)'] },
      });
    });
  });

  describe('live reload (SKILL_WATCH)', () => {
    it('re-registers packages a moment after their files change, with the same rules, and archives removed ones', async () => {
      const root = await tempRoot();
      const watched = await startRegistry({
        databaseUrl: db.url,
        skillPaths: [root],
        queuePrefix,
        env: { SKILL_WATCH: 'true', SKILL_WATCH_DEBOUNCE_MS: '100' },
      });
      const versionsOf = async (name: string) =>
        ((await call(watched.baseUrl, 'GET', `/v1/skills/${name}/versions`)).body.items ?? []).map(
          (v: { version: string; status: string; content_hash: string }) => `${v.version}:${v.status}`,
        );
      try {
        const dir = await writeEchoSkill(root, { name: 'echo_watched', schemaSource: 'export const Nothing = 1;\n' });
        await eventually(async () => (await versionsOf('echo_watched')).join() === '1.0.0:DRAFT');
        await writeFile(
          path.join(dir, 'schema.ts'),
          await readFile(path.join(await writeEchoSkill(await tempRoot()), 'schema.ts'), 'utf8'),
        );
        await eventually(async () => (await versionsOf('echo_watched')).join() === '1.0.0:REGISTERED');
        const stored = (await call(watched.baseUrl, 'GET', '/v1/skills/echo_watched')).body.content_hash;

        // A REGISTERED version stays as stored when its files change; a version bump arrives as a new version.
        const definition = path.join(dir, 'definition.json');
        const parsed = JSON.parse(await readFile(definition, 'utf8'));
        await writeFile(definition, JSON.stringify({ ...parsed, description: 'Changed without a version bump.' }));
        await new Promise((resolve) => setTimeout(resolve, 800));
        expect((await call(watched.baseUrl, 'GET', '/v1/skills/echo_watched')).body.content_hash).toBe(stored);
        await writeFile(definition, JSON.stringify({ ...parsed, version: '1.1.0', description: 'Changed with a version bump.' }));
        await eventually(async () => (await versionsOf('echo_watched')).includes('1.1.0:REGISTERED'));

        await rm(dir, { recursive: true, force: true });
        await eventually(async () => (await versionsOf('echo_watched')).every((entry: string) => entry.endsWith(':ARCHIVED')));
      } finally {
        await watched.stop();
        await rm(root, { recursive: true, force: true });
      }
    });
  });

  describe('compatibility at registration', () => {
    const schemaWith = (inputFields: string) => `import { z } from '@skill-registry/sdk';
export const EchoInput = z.object({ text: z.string().min(1).describe('Text to echo back')${inputFields} }).strict();
export const EchoOutput = z.object({ text: z.string().describe('The same text'), length: z.number().int().describe('Length in characters') });
`;
    const WIDER = schemaWith(", upper: z.boolean().optional().describe('Upper-case it')");
    const BREAKING = schemaWith(
      ", upper: z.boolean().optional().describe('Upper-case it'), count: z.number().int().describe('How many times')",
    );
    const breakingExample = [{ input: { text: 'hi', count: 1 }, output: { text: 'hi', length: 2 } }];

    it('accepts a backward-compatible minor release, refuses a breaking one with its breaks, accepts the break under a major bump', async () => {
      expect((await publish({ name: 'echo_compat', version: '1.0.0' })).status).toBe(201);
      expect((await publish({ name: 'echo_compat', version: '1.1.0', schemaSource: WIDER })).status).toBe(201);

      const dry = await fetch(`${registry.baseUrl}/v1/packages?dry_run=true`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/gzip' },
        body: await packPackageArchive(
          await readPackageDir(
            await writeEchoSkill(await tempRoot(), {
              name: 'echo_compat',
              version: '1.2.0',
              schemaSource: BREAKING,
              examples: breakingExample,
            }),
          ),
        ),
      });
      expect(dry.status).toBe(422);
      const refused = (await dry.json()) as any;
      const breaks = refused.report.filter((issue: { category: string }) => issue.category === 'compatibility');
      expect(breaks).toEqual([
        expect.objectContaining({
          severity: 'error',
          file: 'schema.ts',
          message: expect.stringMatching(/^input schema breaks 1\.1\.0 \(REQUIRED_ADDED\)/),
          hint: expect.stringContaining('2.0.0'),
        }),
      ]);
      const minor = await publish({ name: 'echo_compat', version: '1.2.0', schemaSource: BREAKING, examples: breakingExample });
      expect(minor).toMatchObject({ status: 422, body: { code: 'PACKAGE_INVALID' } });
      expect(minor.body.report.some((issue: { category: string }) => issue.category === 'compatibility')).toBe(true);

      const major = await publish({ name: 'echo_compat', version: '2.0.0', schemaSource: BREAKING, examples: breakingExample });
      expect(major).toMatchObject({ status: 201, body: { version: { version: '2.0.0', status: 'REGISTERED' } } });
      const optedOut = await publish({
        name: 'echo_optout',
        version: '1.0.0',
      });
      expect(optedOut.status).toBe(201);
      const noneBreak = await publish({
        name: 'echo_optout',
        version: '1.1.0',
        schemaSource: BREAKING,
        examples: breakingExample,
        definition: { compatibility: 'none' },
      });
      expect(noneBreak.status).toBe(201);
    });

    it('applies the same rule to gRPC PublishPackage: the breaking minor refused with its breaks, the major accepted', async () => {
      const archiveOf = async (version: string, schemaSource?: string) =>
        packPackageArchive(
          await readPackageDir(
            await writeEchoSkill(await tempRoot(), {
              name: 'echo_grpc_compat',
              version,
              schemaSource,
              examples: schemaSource ? breakingExample : undefined,
            }),
          ),
        );
      const publishRpc = async (archive: Buffer) => unary(client, 'PublishPackage', { archive }, bearer(ADMIN_TOKEN));
      expect((await publishRpc(await archiveOf('1.0.0'))).response.outcome).toBe('new');
      const refused = await failure(publishRpc(await archiveOf('1.1.0', BREAKING)));
      expect(refused).toMatchObject({ code: grpcStatus.INVALID_ARGUMENT, errorCode: 'PACKAGE_INVALID' });
      expect(refused.status?.fieldViolations).toContainEqual(
        expect.objectContaining({ description: expect.stringMatching(/input schema breaks 1\.0\.0 \(REQUIRED_ADDED\)/) }),
      );
      expect((await publishRpc(await archiveOf('2.0.0', BREAKING))).response).toMatchObject({
        outcome: 'new',
        version: { version: '2.0.0' },
      });
    });

    it('serves the report between two stored versions (REST and gRPC) and in the dry run', async () => {
      const between = await call(registry.baseUrl, 'GET', '/v1/skills/echo_compat/compatibility?from=1.1.0&to=2.0.0');
      expect(between).toMatchObject({
        status: 200,
        body: { from: '1.1.0', to: '2.0.0', policy: 'backward', breaking_allowed: true, compatible: false, accepted: true },
      });
      expect(between.body.input.changes).toContainEqual(expect.objectContaining({ code: 'REQUIRED_ADDED', breaking: true }));
      const widened = await call(registry.baseUrl, 'GET', '/v1/skills/echo_compat/compatibility?from=1.0.0&to=1.1.0');
      expect(widened.body).toMatchObject({ compatible: true, breaking_allowed: false, input: { direction: 'backward', compatible: true } });
      expect((await call(registry.baseUrl, 'GET', '/v1/skills/echo_compat/compatibility?from=1.0.0&to=9.0.0')).status).toBe(404);
      expect((await call(registry.baseUrl, 'GET', '/v1/skills/echo_compat/compatibility?from=1.0.0')).status).toBe(400);

      const overGrpc = await unary(client, 'GetCompatibility', { name: 'echo_compat', from: '1.1.0', to: '2.0.0' }, bearer());
      expect(overGrpc.response).toMatchObject({ from: '1.1.0', to: '2.0.0', breaking_allowed: true, accepted: true, compatible: false });

      const dir = await writeEchoSkill(await tempRoot(), {
        name: 'echo_compat',
        version: '2.1.0',
        schemaSource: BREAKING,
        examples: breakingExample,
      });
      const dry = await fetch(`${registry.baseUrl}/v1/packages?dry_run=true`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/gzip' },
        body: await packPackageArchive(await readPackageDir(dir)),
      });
      expect(await dry.json()).toMatchObject({
        outcome: 'valid',
        compatibility: { from: '2.0.0', to: '2.1.0', compatible: true, accepted: true },
      });
    });

    it('keeps a breaking disk package under a minor bump in DRAFT with its breaks as errors', async () => {
      const root = await tempRoot();
      await writeEchoSkill(root, {
        name: 'echo_compat',
        version: '2.2.0',
        examples: [{ input: { text: 'hi' }, output: { text: 'hi', length: 2 } }],
      });
      // A second registry over the same database whose SKILL_PATHS holds the package.
      const scoped = await startRegistry({ databaseUrl: db.url, skillPaths: [root], queuePrefix });
      try {
        const version = (await call(scoped.baseUrl, 'GET', '/v1/skills/echo_compat/versions/2.2.0')).body;
        expect(version.status).toBe('DRAFT');
        expect(version.validation).toContainEqual(
          expect.objectContaining({
            severity: 'error',
            category: 'compatibility',
            message: expect.stringMatching(/^input schema breaks 2\.0\.0/),
          }),
        );
      } finally {
        await scoped.stop();
        await rm(root, { recursive: true, force: true });
      }
    });

    it('compares two schemas statelessly (REST and gRPC), 422 for a schema that is not one', async () => {
      const body = {
        old: { type: 'object', properties: { a: { type: 'string' } } },
        new: { type: 'object', required: ['a'] },
        direction: 'backward',
      };
      const checked = await call(registry.baseUrl, 'POST', '/v1/compatibility', { body });
      expect(checked).toMatchObject({ status: 200, body: { compatible: false } });
      expect(checked.body.changes).toContainEqual(
        expect.objectContaining({ code: 'REQUIRED_ADDED', breaking: true, new_pointer: '/required' }),
      );
      const bad = await call(registry.baseUrl, 'POST', '/v1/compatibility', { body: { old: { type: 'strnig' }, new: true } });
      expect(bad).toMatchObject({ status: 422, body: { code: 'SCHEMA_INVALID', schema: 'old' } });
      expect(
        (await call(registry.baseUrl, 'POST', '/v1/compatibility', { body: { old: {}, new: {}, direction: 'sideways' } })).status,
      ).toBe(400);

      const overGrpc = await unary(
        client,
        'CheckCompatibility',
        { old: { structValue: { fields: { type: { stringValue: 'string' } } } }, new: { boolValue: true } },
        bearer(),
      );
      expect(overGrpc.response).toMatchObject({ compatible: true });
      const badGrpc = await failure(
        unary(client, 'CheckCompatibility', { old: { stringValue: 'nope' }, new: { boolValue: true } }, bearer()),
      );
      expect(badGrpc.code).toBe(grpcStatus.INVALID_ARGUMENT);
    });
  });
});
