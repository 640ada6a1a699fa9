import path from 'node:path';
import { rm } from 'node:fs/promises';
import { Metadata, status } from '@grpc/grpc-js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import {
  bearer,
  failure,
  grpcPort,
  reflect,
  registryClient,
  restShape,
  unary,
  unresolvedReferences,
  withoutNulls,
  type RegistryClient,
} from '../support/grpc.js';
import { ADMIN_TOKEN, AGENT_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { copyCatalogSkill, tempRoot, writeEchoSkill } from '../support/skill-packages.js';
import { obliterateQueue } from '../support/executions.js';

describe('gRPC: catalog, search and administration', () => {
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  let guarded: RunningRegistry;
  let client: RegistryClient;
  let guardedClient: RegistryClient;
  const admin = bearer(ADMIN_TOKEN);
  const queuePrefix = `test-grpc-${process.pid}-${Date.now()}`;
  const rpc = (method: string, request: object = {}, metadata = bearer()) => unary(client, method, request, metadata);
  const rest = (p: string) => call(registry.baseUrl, 'GET', p);

  beforeAll(async () => {
    db = await createTestDatabase('grpc');
    root = await tempRoot();
    await copyCatalogSkill(root, 'simulation/compare_results');
    await writeEchoSkill(root);
    await writeEchoSkill(root, { name: 'no_examples', examples: [] });
    await writeEchoSkill(root, { name: 'successor_echo' });
    await writeEchoSkill(root, { name: 'bad_semver', version: '1.0' });
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root], queuePrefix });
    // A replica on the same database with AGENT_TOKENS set: reads need a token there.
    guarded = await startRegistry({ databaseUrl: db.url, skillPaths: [root], queuePrefix, agentTokens: true });
    client = registryClient(grpcPort(registry));
    guardedClient = registryClient(grpcPort(guarded));
  });

  afterAll(async () => {
    client?.close();
    guardedClient?.close();
    await guarded?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  it('serves reflection that strict clients such as grpcurl can resolve: list, describe, call', async () => {
    const { services, files } = await reflect(grpcPort(registry), 'skillregistry.v1.SkillRegistry');
    expect(services).toContain('skillregistry.v1.SkillRegistry');
    const service = files.flatMap((file) => file.service ?? []).find((candidate) => candidate.name === 'SkillRegistry');
    expect(service?.method.map((method) => method.name)).toEqual([
      'ListSkills',
      'GetSkill',
      'ListVersions',
      'GetHistory',
      'ListDependents',
      'ListPackageFiles',
      'GetPackageFile',
      'CheckCompatibility',
      'GetCompatibility',
      'GetHealth',
      'SearchSkills',
      'Discover',
      'RegisterSkill',
      'PublishPackage',
      'PromoteSkill',
      'DeprecateSkill',
      'ExecuteSkill',
      'GetExecution',
      'ListExecutions',
      'CancelExecution',
      'GetUsage',
      'WatchExecution',
      'WatchEvents',
    ]);
    expect(service?.method.find((method) => method.name === 'WatchExecution')?.serverStreaming).toBe(true);
    expect(service?.method.find((method) => method.name === 'WatchEvents')?.serverStreaming).toBe(true);
    // The well-known types come in their canonical files, imported by the file that uses them.
    const names = files.map((file) => file.name);
    expect(names).toEqual(expect.arrayContaining(['google/protobuf/struct.proto', 'google/protobuf/timestamp.proto']));
    expect(files.find((file) => file.service?.length)?.dependency).toEqual([
      'google/protobuf/struct.proto',
      'google/protobuf/timestamp.proto',
    ]);
    expect(unresolvedReferences(files)).toEqual([]);
    // Map entries carry the names protoc and Go require (proto-loader alone says `By_status`).
    const health = files.flatMap((file) => file.messageType ?? []).find((message) => message.name === 'RegistryHealth');
    expect(health?.nestedType.map((entry: { name: string }) => entry.name)).toEqual(['ByStatusEntry', 'ByDomainEntry', 'ByAgentEntry']);
  });

  it('ListSkills returns the same skills as GET /v1/skills, filtered and paged alike', async () => {
    const { response } = await rpc('ListSkills', { limit: 100 });
    const listed = (await rest('/v1/skills?limit=100')).body;
    expect(response.items.map((item: { name: string }) => item.name)).toEqual(listed.items.map((item: { name: string }) => item.name));
    expect(withoutNulls(restShape(response.items))).toEqual(withoutNulls(listed.items));

    const filtered = await rpc('ListSkills', { status: 'REGISTERED', tags: ['echo'] });
    expect(filtered.response.items.map((item: { name: string }) => item.name).sort()).toEqual([
      'echo_text',
      'no_examples',
      'successor_echo',
    ]);

    const first = await rpc('ListSkills', { limit: 2 });
    expect(first.response.items).toHaveLength(2);
    expect(first.response.next_cursor).not.toBe('');
    const second = await rpc('ListSkills', { limit: 2, cursor: first.response.next_cursor });
    const restSecond = (await rest(`/v1/skills?limit=2&cursor=${first.response.next_cursor}`)).body;
    expect(second.response.items.map((item: { name: string }) => item.name)).toEqual(
      restSecond.items.map((item: { name: string }) => item.name),
    );
  });

  it('GetSkill returns the same data as GET /v1/skills/{name}, and one version when asked', async () => {
    for (const name of ['compare_results', 'echo_text', 'bad_semver']) {
      const { response } = await rpc('GetSkill', { name });
      const { body } = await rest(`/v1/skills/${name}`);
      const { versions, ...current } = body;
      expect(withoutNulls(restShape(response.skill))).toEqual(withoutNulls(current));
      expect(response.versions).toEqual(versions);
    }
    const schema = restShape((await rpc('GetSkill', { name: 'compare_results' })).response.skill.input_schema);
    expect(schema.properties.signals.type).toBe('array');

    const pinned = await rpc('GetSkill', { name: 'compare_results', version: '0.1.0' });
    expect(withoutNulls(restShape(pinned.response.skill))).toEqual(
      withoutNulls((await rest('/v1/skills/compare_results/versions/0.1.0')).body),
    );
    const missingVersion = await failure(rpc('GetSkill', { name: 'compare_results', version: '9.9.9' }));
    expect(missingVersion).toMatchObject({ code: status.NOT_FOUND, errorCode: 'SKILL_NOT_FOUND' });
  });

  it('answers NOT_FOUND with the stable code in metadata and ErrorInfo for an unknown skill, on every read', async () => {
    for (const method of ['GetSkill', 'ListVersions', 'GetHistory', 'GetUsage']) {
      const error = await failure(rpc(method, { name: 'no_such_skill' }));
      expect(error).toMatchObject({ code: status.NOT_FOUND, errorCode: 'SKILL_NOT_FOUND' });
      expect(error.details).toContain("No skill named 'no_such_skill'");
      expect(error.status?.errorInfo).toEqual({
        reason: 'SKILL_NOT_FOUND',
        domain: 'skill-registry.dev',
        metadata: { name: 'no_such_skill' },
      });
    }
  });

  it('refuses malformed requests with INVALID_ARGUMENT and every field violation, never INTERNAL', async () => {
    const cases: [string, object, string[]][] = [
      ['GetSkill', {}, ['name']],
      ['ListVersions', { name: '' }, ['name']],
      ['ListSkills', { limit: 1000 }, ['limit']],
      ['ListSkills', { phase: 7, limit: 500 }, ['phase', 'limit']],
      ['ListSkills', { cursor: 'not a cursor!' }, ['cursor']],
      ['SearchSkills', {}, ['q']],
      ['SearchSkills', { q: '   ' }, ['q']],
      ['SearchSkills', { q: 'x', limit: 101 }, ['limit']],
      ['ListExecutions', { limit: 101 }, ['limit']],
      ['ExecuteSkill', { name: 'echo_text' }, ['input']],
      ['ExecuteSkill', { input: { fields: {} } }, ['name']],
      ['GetExecution', {}, ['id']],
    ];
    for (const [method, request, fields] of cases) {
      const error = await failure(rpc(method, request));
      expect({ method, code: error.code, errorCode: error.errorCode }).toEqual({
        method,
        code: status.INVALID_ARGUMENT,
        errorCode: 'VALIDATION_FAILED',
      });
      expect(error.status?.fieldViolations.map((violation) => violation.field).sort()).toEqual([...fields].sort());
    }
    const cursor = await failure(rpc('ListSkills', { cursor: 'bm90LWEtY3Vyc29y' }));
    expect(cursor).toMatchObject({ code: status.INVALID_ARGUMENT, errorCode: 'INVALID_CURSOR' });
    expect(cursor.status?.fieldViolations).toEqual([{ field: 'cursor', description: expect.any(String) }]);
  });

  it('GetHistory and ListVersions return the lifecycle of a skill', async () => {
    const versions = await rpc('ListVersions', { name: 'echo_text' });
    expect(versions.response.items.map((item: { version: string; status: string }) => [item.version, item.status])).toEqual([
      ['1.0.0', 'REGISTERED'],
    ]);
    expect(withoutNulls(restShape(versions.response.items))).toEqual(
      withoutNulls((await rest('/v1/skills/echo_text/versions')).body.items),
    );
    const history = await rpc('GetHistory', { name: 'echo_text' });
    expect(history.response.items).toHaveLength(1);
    expect(history.response.items[0]).toMatchObject({
      version: '1.0.0',
      from: 'SKILL_STATUS_UNSPECIFIED',
      to: 'REGISTERED',
      actor: 'system:discovery',
      forced: false,
    });
    expect(restShape(history.response.items[0].evidence)).toMatchObject({ errors: 0 });
  });

  it('GetHealth matches GET /v1/health', async () => {
    const { response } = await rpc('GetHealth');
    const { body } = await rest('/v1/health');
    expect(response).toMatchObject({ skills: body.skills, versions: body.versions, by_status: body.by_status, by_domain: body.by_domain });
    expect(response.drafts.map((draft: { name: string }) => draft.name)).toEqual(['bad_semver']);
    expect(response.drafts[0].first_error.severity).toBe('error');
  });

  it('SearchSkills ranks like GET /v1/search, exact name first', async () => {
    const { response } = await rpc('SearchSkills', { q: 'echo_text', status: 'REGISTERED' });
    const { body } = await rest('/v1/search?q=echo_text&status=REGISTERED');
    expect(response.items[0].name).toBe('echo_text');
    expect(response.total).toBe(body.total);
    expect(withoutNulls(restShape(response.items))).toEqual(withoutNulls(body.items));
  });

  describe('auth', () => {
    const adminCalls: [string, object][] = [
      ['Discover', {}],
      ['RegisterSkill', { path: 'anything' }],
      ['PromoteSkill', { name: 'echo_text', version: '1.0.0' }],
      ['DeprecateSkill', { name: 'echo_text', reason: 'r' }],
    ];

    it.each(adminCalls)(
      '%s needs an admin token: UNAUTHENTICATED without or with an unknown one, PERMISSION_DENIED for an agent',
      async (method, request) => {
        for (const target of [client, guardedClient]) {
          expect(await failure(unary(target, method, request))).toMatchObject({
            code: status.UNAUTHENTICATED,
            errorCode: 'UNAUTHENTICATED',
          });
          expect(await failure(unary(target, method, request, bearer('unknown-token-123')))).toMatchObject({
            code: status.UNAUTHENTICATED,
          });
          const malformed = new Metadata();
          malformed.set('authorization', `Token ${ADMIN_TOKEN}`);
          expect(await failure(unary(target, method, request, malformed))).toMatchObject({ code: status.UNAUTHENTICATED });
        }
        expect(await failure(unary(guardedClient, method, request, bearer(AGENT_TOKEN)))).toMatchObject({
          code: status.PERMISSION_DENIED,
          errorCode: 'FORBIDDEN',
        });
      },
    );

    it('lets an admin token through (Discover reports what it found)', async () => {
      const { response } = await rpc('Discover', {}, admin);
      expect(response).toMatchObject({ new: 0, refused: 0, archived: 0, missing_roots: [] });
      expect(response.unchanged).toBe(5);
      expect(response.packages.map((report: { name: string }) => report.name).sort()).toEqual(
        ['bad_semver', 'compare_results', 'echo_text', 'no_examples', 'successor_echo'].sort(),
      );
    });

    it('follows AGENT_TOKENS on reads: a token is needed where it is set, reads are open where it is not', async () => {
      const request = { name: 'echo_text' };
      expect(await failure(unary(guardedClient, 'GetSkill', request))).toMatchObject({
        code: status.UNAUTHENTICATED,
        errorCode: 'UNAUTHENTICATED',
      });
      expect(await failure(unary(guardedClient, 'GetSkill', request, bearer('unknown-token-123')))).toMatchObject({
        code: status.UNAUTHENTICATED,
      });
      expect((await unary(guardedClient, 'GetSkill', request, bearer(AGENT_TOKEN))).response.skill.name).toBe('echo_text');
      expect((await unary(guardedClient, 'GetSkill', request, admin)).response.skill.name).toBe('echo_text');
      expect(await failure(unary(guardedClient, 'ListSkills', {}))).toMatchObject({ code: status.UNAUTHENTICATED });
      expect(await failure(unary(guardedClient, 'GetHealth', {}))).toMatchObject({ code: status.UNAUTHENTICATED });
      // Without AGENT_TOKENS reads need no token, but an unknown token is still refused.
      expect((await rpc('GetSkill', request)).response.skill.name).toBe('echo_text');
      expect(await failure(rpc('GetSkill', request, bearer('unknown-token-123')))).toMatchObject({ code: status.UNAUTHENTICATED });
    });
  });

  describe('administration', () => {
    it('RegisterSkill registers one package inside SKILL_PATHS and refuses paths outside or without a package', async () => {
      const dir = await writeEchoSkill(root, { name: 'late_echo' });
      const { response } = await rpc('RegisterSkill', { path: dir }, admin);
      expect(response).toMatchObject({ outcome: 'new', version: { name: 'late_echo', version: '1.0.0', status: 'REGISTERED' } });
      expect((await rpc('RegisterSkill', { path: dir }, admin)).response.outcome).toBe('unchanged');

      const outside = await failure(rpc('RegisterSkill', { path: '/etc' }, admin));
      expect(outside).toMatchObject({ code: status.INVALID_ARGUMENT, errorCode: 'PATH_OUTSIDE_SKILL_PATHS' });
      expect(outside.status?.fieldViolations.map((violation) => violation.field)).toEqual(['path']);
      expect(await failure(rpc('RegisterSkill', { path: path.join(root, 'demo', 'no_such_package') }, admin))).toMatchObject({
        code: status.NOT_FOUND,
        errorCode: 'PACKAGE_NOT_FOUND',
      });
      const empty = await failure(rpc('RegisterSkill', { path: '' }, admin));
      expect(empty).toMatchObject({ code: status.INVALID_ARGUMENT, errorCode: 'VALIDATION_FAILED' });
      expect(empty.status?.fieldViolations.map((violation) => violation.field)).toEqual(['path']);
    });

    it('PromoteSkill refuses missing evidence and invalid moves with FAILED_PRECONDITION, and promotes when forced', async () => {
      const reasonless = await failure(rpc('PromoteSkill', { name: 'no_examples', version: '1.0.0', force: true }, admin));
      expect(reasonless).toMatchObject({ code: status.INVALID_ARGUMENT, errorCode: 'VALIDATION_FAILED' });
      expect(reasonless.status?.fieldViolations.map((violation) => violation.field)).toEqual(['reason']);

      const evidence = await failure(rpc('PromoteSkill', { name: 'no_examples', version: '1.0.0' }, admin));
      expect(evidence).toMatchObject({ code: status.FAILED_PRECONDITION, errorCode: 'PROMOTION_EVIDENCE_FAILED' });
      expect(evidence.status?.preconditionViolations).toEqual([
        {
          type: 'PROMOTION_EVIDENCE_FAILED',
          subject: 'no_examples@1.0.0',
          description: 'the package declares no examples to serve as evidence',
        },
      ]);

      const draftVersion = (await rpc('GetSkill', { name: 'bad_semver' })).response.skill;
      expect(draftVersion.status).toBe('DRAFT');
      const draft = await failure(rpc('PromoteSkill', { name: 'bad_semver', version: draftVersion.version }, admin));
      expect(draft).toMatchObject({ code: status.FAILED_PRECONDITION, errorCode: 'INVALID_TRANSITION' });
      expect(await failure(rpc('PromoteSkill', { name: 'echo_text' }, admin))).toMatchObject({ code: status.INVALID_ARGUMENT });
      expect(await failure(rpc('PromoteSkill', { name: 'echo_text', version: '7.0.0' }, admin))).toMatchObject({ code: status.NOT_FOUND });

      for (const name of ['echo_text', 'successor_echo']) {
        const { response } = await rpc('PromoteSkill', { name, version: '1.0.0', force: true, reason: 'gRPC test' }, admin);
        expect(response).toMatchObject({ name, status: 'ACTIVE' });
      }
      const again = await failure(rpc('PromoteSkill', { name: 'echo_text', version: '1.0.0', force: true, reason: 'again' }, admin));
      expect(again).toMatchObject({ code: status.FAILED_PRECONDITION, errorCode: 'INVALID_TRANSITION' });
      const history = (await rpc('GetHistory', { name: 'echo_text' })).response.items;
      expect(history.at(-1)).toMatchObject({ from: 'REGISTERED', to: 'ACTIVE', actor: 'root', forced: true, reason: 'gRPC test' });
    });

    it('DeprecateSkill validates its request, then carries the notice in the response and the trailers, as REST headers do', async () => {
      expect(await failure(rpc('DeprecateSkill', { name: 'echo_text', reason: '' }, admin))).toMatchObject({
        code: status.INVALID_ARGUMENT,
      });
      const past = await failure(
        rpc('DeprecateSkill', { name: 'echo_text', reason: 'old', sunset: { seconds: 1_000_000, nanos: 0 } }, admin),
      );
      expect(past).toMatchObject({ code: status.INVALID_ARGUMENT, errorCode: 'VALIDATION_FAILED' });
      expect(past.status?.fieldViolations.map((violation) => violation.field)).toEqual(['sunset']);
      const badSuccessor = await failure(rpc('DeprecateSkill', { name: 'echo_text', reason: 'old', successor: 'Not A Skill' }, admin));
      expect(badSuccessor.status?.fieldViolations.map((violation) => violation.field)).toEqual(['successor']);
      expect(await failure(rpc('DeprecateSkill', { name: 'no_examples', reason: 'old' }, admin))).toMatchObject({
        code: status.FAILED_PRECONDITION,
        errorCode: 'INVALID_TRANSITION',
      });

      const sunset = new Date(Date.now() + 30 * 86_400_000);
      sunset.setUTCMilliseconds(0);
      const { response, trailers } = await rpc(
        'DeprecateSkill',
        {
          name: 'echo_text',
          reason: 'use successor_echo',
          successor: 'successor_echo',
          sunset: { seconds: sunset.getTime() / 1000, nanos: 0 },
        },
        admin,
      );
      expect(response.items).toHaveLength(1);
      expect(response.items[0]).toMatchObject({
        name: 'echo_text',
        status: 'DEPRECATED',
        deprecation: { reason: 'use successor_echo', successor: 'successor_echo' },
      });
      expect(restShape(response.items[0].deprecation.sunset)).toBe(sunset.toISOString());
      expect(trailers.get('deprecation')[0]).toMatch(/^@\d+$/);
      expect(trailers.get('sunset')).toEqual([sunset.toUTCString()]);
      expect(trailers.get('link')).toEqual(['</v1/skills/successor_echo>; rel="successor-version"']);

      // GetSkill of the deprecated skill: the same notice as GET /v1/skills/{name}, in the body and the trailers.
      const got = await rpc('GetSkill', { name: 'echo_text' });
      const { body, headers } = await rest('/v1/skills/echo_text');
      expect(withoutNulls(restShape(got.response.skill.deprecation))).toEqual(withoutNulls(body.deprecation));
      expect(got.trailers.get('deprecation')).toEqual([headers.get('deprecation')]);
      expect(got.trailers.get('sunset')).toEqual([headers.get('sunset')]);
      expect(got.trailers.get('link')).toEqual([headers.get('link')]);
      // Not deprecated: no trailers.
      expect((await rpc('GetSkill', { name: 'successor_echo' })).trailers.get('deprecation')).toEqual([]);
      // Search ranks it with its notice.
      const hit = (await rpc('SearchSkills', { q: 'echo_text' })).response.items.find(
        (item: { name: string }) => item.name === 'echo_text',
      );
      expect(hit).toMatchObject({ status: 'DEPRECATED', deprecation: { reason: 'use successor_echo' } });
    });
  });
});
