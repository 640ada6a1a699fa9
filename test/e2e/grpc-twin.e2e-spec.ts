import { createHash } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { Metadata, status } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, EXECUTION_SKILLS_ROOT, obliterateQueue } from '../support/executions.js';
import {
  PROTO_PATH,
  bearer,
  failure,
  grpcPort,
  reflect,
  registryClient,
  restShape,
  struct,
  unary,
  unresolvedReferences,
  withoutNulls,
  type RegistryClient,
} from '../support/grpc.js';
import { ADMIN_TOKEN, AGENT_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';

const MAX_REVISION_BYTES = 4096;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
/** Every byte value, twice, in an order that is not the identity: a text decoding anywhere would show. */
const ALL_BYTES = Buffer.from([...Array.from({ length: 256 }, (_, i) => 255 - i), ...Array.from({ length: 256 }, (_, i) => i)]);

/** A grpc-js client of service skillregistry.v1.Twin, as another service would write it. */
function twinClient(port: number): RegistryClient {
  const definition = protoLoader.loadSync(PROTO_PATH, { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true });
  const loaded = grpc.loadPackageDefinition(definition) as any;
  const Service = loaded.skillregistry.v1.Twin as grpc.ServiceClientConstructor;
  return new Service(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
  }) as RegistryClient;
}

/** A gRPC message as REST JSON, with uint64 sizes (strings in proto-loader's object form) as numbers. */
function asRest(message: any): any {
  const shaped = withoutNulls(restShape(message));
  const numbers = (value: any): any => {
    if (Array.isArray(value)) return value.map(numbers);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, member]) => [key, ['size', 'bytes_written'].includes(key) ? Number(member) : numbers(member)]),
    );
  };
  return numbers(shaped);
}

/**
 * The digital twin over gRPC (service Twin): the same operations, rules and authorization as the
 * REST routes of test/e2e/twin.e2e-spec.ts, with a real grpc-js client; every refusal writes nothing.
 */
describe('gRPC: the digital twin (service Twin)', () => {
  let db: TestDatabase;
  let registry: RunningRegistry;
  let open: RunningRegistry;
  let executor: RunningExecutor;
  let pool: pg.Pool;
  let twin: RegistryClient;
  let openTwin: RegistryClient;
  let skills: RegistryClient;
  const queuePrefix = `test-grpc-twin-${process.pid}-${Date.now()}`;
  const agent = () => bearer(AGENT_TOKEN);
  const rpc = (method: string, request: object = {}, metadata: Metadata = agent()) => unary(twin, method, request, metadata);
  const put = (request: object, metadata: Metadata = agent()) =>
    rpc('PutWorkProduct', { branch: 'main', media_type: 'text/plain', ...request }, metadata);
  const rest = (path: string) => call(registry.baseUrl, 'GET', path, { token: AGENT_TOKEN });
  const counts = async () =>
    (
      await pool.query(
        `SELECT (SELECT count(*) FROM work_products)::int AS products, (SELECT count(*) FROM work_product_revisions)::int AS revisions,
                (SELECT count(*) FROM twin_branches)::int AS branches, (SELECT count(*) FROM work_product_constraints)::int AS constraints,
                (SELECT coalesce(sum(bytes_written), 0)::int FROM twin_branches) AS bytes, (SELECT count(*) FROM executions)::int AS executions`,
      )
    ).rows[0];

  beforeAll(async () => {
    db = await createTestDatabase('grpc_twin');
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    const env = { TWIN_MAX_REVISION_BYTES: String(MAX_REVISION_BYTES) };
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [EXECUTION_SKILLS_ROOT], queuePrefix, agentTokens: true, env });
    // A replica on the same database without AGENT_TOKENS: reads are open there, writes still need a token.
    open = await startRegistry({ databaseUrl: db.url, skillPaths: [EXECUTION_SKILLS_ROOT], queuePrefix, env });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    await activate(registry.baseUrl, ['twin_upper']);
    twin = twinClient(grpcPort(registry));
    openTwin = twinClient(grpcPort(open));
    skills = registryClient(grpcPort(registry));
  });

  afterAll(async () => {
    twin?.close();
    openTwin?.close();
    skills?.close();
    await executor?.stop();
    await open?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await pool?.end();
    await db?.drop();
  });

  it('serves service Twin next to SkillRegistry, with reflection strict clients can resolve', async () => {
    const { services, files } = await reflect(grpcPort(registry), 'skillregistry.v1.Twin');
    expect(services).toEqual(expect.arrayContaining(['skillregistry.v1.SkillRegistry', 'skillregistry.v1.Twin']));
    const service = files.flatMap((file) => file.service ?? []).find((candidate) => candidate.name === 'Twin');
    expect(service?.method.map((method) => method.name)).toEqual([
      'ListBranches',
      'CreateBranch',
      'GetBranch',
      'PutWorkProduct',
      'ListWorkProducts',
      'GetWorkProduct',
      'ListRevisions',
      'GetWorkProductContent',
      'ArchiveWorkProduct',
      'SetConstraints',
      'GetConstraints',
      'GetProvenance',
      'GetExecutionTwinAccess',
    ]);
    expect(unresolvedReferences(files)).toEqual([]);
  });

  it('puts binary content and serves it back byte for byte, with its hash, as REST does', async () => {
    const created = await put({
      kind: 'cad_model',
      name: 'bracket',
      content: ALL_BYTES,
      media_type: 'application/octet-stream',
      metadata: struct({ units: 'mm', tolerance: 0.1 }),
    });
    const workProduct = created.response.work_product;
    const sha256 = createHash('sha256').update(ALL_BYTES).digest('hex');
    expect(created.response.created).toBe(true);
    expect(asRest(workProduct)).toMatchObject({
      kind: 'cad_model',
      name: 'bracket',
      branch: 'main',
      uri: `twin://main/${workProduct.id}`,
      created_by: 'bot',
      current: {
        revision: 1,
        archived: false,
        content_hash: `sha256:${sha256}`,
        media_type: 'application/octet-stream',
        size: ALL_BYTES.length,
        metadata: { units: 'mm', tolerance: 0.1 },
        created_by: 'bot',
      },
    });

    const content = await rpc('GetWorkProductContent', { id: workProduct.id });
    expect(Buffer.compare(content.response.content, ALL_BYTES)).toBe(0);
    expect(content.response).toMatchObject({
      id: workProduct.id,
      branch: 'main',
      revision: 1,
      content_hash: `sha256:${sha256}`,
      media_type: 'application/octet-stream',
      size: String(ALL_BYTES.length),
    });
    // The same revision over REST: the same bytes, and the hash is its ETag.
    const download = await fetch(`${registry.baseUrl}/v1/twin/branches/main/work-products/${workProduct.id}/content`, {
      headers: { authorization: `Bearer ${AGENT_TOKEN}` },
    });
    expect(Buffer.compare(Buffer.from(await download.arrayBuffer()), ALL_BYTES)).toBe(0);
    expect(download.headers.get('etag')).toBe(`"sha256:${sha256}"`);

    const got = await rpc('GetWorkProduct', { branch: 'main', id: workProduct.id });
    expect(asRest(got.response)).toEqual(withoutNulls((await rest(`/v1/twin/branches/main/work-products/${workProduct.id}`)).body));

    // A revision: `id` set, kind and name left to the work product's.
    const revised = await put({ id: workProduct.id, content: Buffer.from('second'), media_type: 'text/plain' });
    expect(revised.response).toMatchObject({
      created: true,
      work_product: { id: workProduct.id, kind: 'cad_model', current: { revision: 2 } },
    });
    // The same bytes again: nothing new is written.
    const before = await counts();
    const same = await put({ id: workProduct.id, content: Buffer.from('second'), media_type: 'text/plain' });
    expect(same.response).toMatchObject({ created: false, work_product: { current: { revision: 2 } } });
    expect(await counts()).toEqual(before);

    const revisions = await rpc('ListRevisions', { id: workProduct.id });
    expect(revisions.response.items.map((item: any) => item.revision)).toEqual([2, 1]);
    expect(asRest(revisions.response.items)).toEqual(
      withoutNulls((await rest(`/v1/twin/branches/main/work-products/${workProduct.id}/revisions`)).body.items),
    );
    const first = await rpc('GetWorkProductContent', { id: workProduct.id, revision: 1 });
    expect(Buffer.compare(first.response.content, ALL_BYTES)).toBe(0);
    expect((await rpc('GetWorkProductContent', { id: workProduct.id })).response.content.toString()).toBe('second');
    expect(await failure(rpc('GetWorkProductContent', { id: workProduct.id, revision: 9 }))).toMatchObject({
      code: status.NOT_FOUND,
      errorCode: 'REVISION_NOT_FOUND',
    });
  });

  it('creates and lists branches; a revision on a branch is invisible on main', async () => {
    const base = await put({ kind: 'netlist', name: 'divider', content: Buffer.from('R1 in out 1k') });
    const id = base.response.work_product.id as string;

    const branch = await rpc('CreateBranch', { name: 'rev-b' });
    expect(asRest(branch.response)).toMatchObject({ name: 'rev-b', parent: 'main', purpose: 'work', created_by: 'bot', bytes_written: 0 });
    expect(branch.response.forked_at).toEqual(expect.objectContaining({ seconds: expect.any(String) }));
    expect(asRest((await rpc('GetBranch', { name: 'rev-b' })).response)).toEqual(
      withoutNulls((await rest('/v1/twin/branches/rev-b')).body),
    );
    const listed = await rpc('ListBranches', {});
    expect(listed.response.items.map((item: any) => item.name)).toEqual(['main', 'rev-b']);
    expect(listed.response.next_cursor).toBe('');
    expect(asRest(listed.response.items)).toEqual(withoutNulls((await rest('/v1/twin/branches')).body.items));
    const paged = await rpc('ListBranches', { limit: 1 });
    expect(paged.response).toMatchObject({ items: [{ name: 'main' }], next_cursor: 'main' });
    expect((await rpc('ListBranches', { limit: 1, cursor: 'main' })).response.items.map((item: any) => item.name)).toEqual(['rev-b']);

    const onBranch = await put({ branch: 'rev-b', id, content: Buffer.from('R1 in out 2k') });
    expect(onBranch.response.work_product).toMatchObject({ branch: 'rev-b', current: { revision: 2, branch: 'rev-b' } });
    const onMain = await rpc('GetWorkProduct', { id });
    expect(onMain.response.current).toMatchObject({ revision: 1, branch: 'main' });
    expect((await rpc('GetWorkProductContent', { id })).response.content.toString()).toBe('R1 in out 1k');
    expect((await rpc('GetWorkProductContent', { branch: 'rev-b', id })).response.content.toString()).toBe('R1 in out 2k');
    expect((await rpc('ListRevisions', { id })).response.items.map((item: any) => item.revision)).toEqual([1]);
    expect(await failure(rpc('GetWorkProductContent', { id, revision: 2 }))).toMatchObject({
      code: status.NOT_FOUND,
      errorCode: 'REVISION_NOT_FOUND',
    });

    const branchOnly = await put({ branch: 'rev-b', kind: 'netlist', name: 'branch only', content: Buffer.from('R2 a b 2k') });
    expect(await failure(rpc('GetWorkProduct', { id: branchOnly.response.work_product.id }))).toMatchObject({
      code: status.NOT_FOUND,
      errorCode: 'WORK_PRODUCT_NOT_FOUND',
    });
    const mainNetlists = await rpc('ListWorkProducts', { kind: 'netlist' });
    expect(mainNetlists.response.items.map((item: any) => item.id)).toEqual([id]);
    const branchNetlists = await rpc('ListWorkProducts', { branch: 'rev-b', kind: 'netlist' });
    expect(branchNetlists.response.items.map((item: any) => item.id).sort()).toEqual([id, branchOnly.response.work_product.id].sort());
    expect(asRest(branchNetlists.response.items)).toEqual(
      withoutNulls((await rest('/v1/twin/branches/rev-b/work-products?kind=netlist')).body.items),
    );
    const byName = await rpc('ListWorkProducts', { branch: 'rev-b', name: 'branch only' });
    expect(byName.response.items.map((item: any) => item.id)).toEqual([branchOnly.response.work_product.id]);
    const firstPage = await rpc('ListWorkProducts', { branch: 'rev-b', kind: 'netlist', limit: 1 });
    expect(firstPage.response.next_cursor).toBe(firstPage.response.items[0].id);

    // Archiving hides it on that branch only.
    const archived = await rpc('ArchiveWorkProduct', { branch: 'rev-b', id });
    expect(archived.response).toMatchObject({ archived: true, branch: 'rev-b', created_by: 'bot' });
    expect(await failure(rpc('GetWorkProduct', { branch: 'rev-b', id }))).toMatchObject({ code: status.NOT_FOUND });
    expect((await rpc('GetWorkProduct', { id })).response.current.revision).toBe(1);
  });

  it('reads an archived work product by revision number, lists it with `archived`, and restores it with PutWorkProduct', async () => {
    const created = await put({ kind: 'report', name: 'shelved', content: Buffer.from('first') });
    const id = created.response.work_product.id as string;
    await put({ id, content: Buffer.from('second') });
    expect((await rpc('ArchiveWorkProduct', { id })).response).toMatchObject({ revision: 3, archived: true });

    const hidden = await failure(rpc('GetWorkProduct', { id }));
    expect(hidden).toMatchObject({ code: status.NOT_FOUND, errorCode: 'WORK_PRODUCT_NOT_FOUND' });
    expect(hidden.status?.errorInfo?.metadata).toMatchObject({ archived: 'true', archived_revision: '3' });
    expect(await failure(rpc('GetWorkProductContent', { id }))).toMatchObject({
      code: status.NOT_FOUND,
      errorCode: 'WORK_PRODUCT_NOT_FOUND',
    });
    // Its revisions stay readable by number (NOT_FOUND before); the archival marker has no content.
    expect((await rpc('GetWorkProductContent', { id, revision: 1 })).response).toMatchObject({
      revision: 1,
      content: Buffer.from('first'),
    });
    expect((await rpc('GetWorkProductContent', { id, revision: 2 })).response.content.toString()).toBe('second');
    expect(await failure(rpc('GetWorkProductContent', { id, revision: 3 }))).toMatchObject({
      code: status.NOT_FOUND,
      errorCode: 'REVISION_NOT_FOUND',
    });
    expect((await rpc('ListRevisions', { id })).response.items.map((item: any) => [item.revision, item.archived])).toEqual([
      [3, true],
      [2, false],
      [1, false],
    ]);
    // Listed only with `archived`, as REST's ?archived=true.
    expect((await rpc('ListWorkProducts', { name: 'shelved' })).response.items).toEqual([]);
    const archived = await rpc('ListWorkProducts', { name: 'shelved', archived: true });
    expect(archived.response.items).toEqual([
      expect.objectContaining({ id, current: expect.objectContaining({ revision: 3, archived: true }) }),
    ]);
    expect(asRest(archived.response.items)).toEqual(
      withoutNulls((await rest('/v1/twin/branches/main/work-products?name=shelved&archived=true')).body.items),
    );

    // A revision restores it (NOT_FOUND before), even with the bytes it had.
    const restored = await put({ id, content: Buffer.from('second') });
    expect(restored.response).toMatchObject({
      created: true,
      work_product: { id, kind: 'report', current: { revision: 4, archived: false } },
    });
    expect((await rpc('GetWorkProduct', { id })).response.current.revision).toBe(4);
    expect((await rpc('ListWorkProducts', { name: 'shelved' })).response.items.map((item: any) => item.id)).toEqual([id]);
    expect((await rpc('ListWorkProducts', { name: 'shelved', archived: true })).response.items).toEqual([]);
  });

  it('sets constraints checked against their kind: INVALID_ARGUMENT naming every bad field, nothing written', async () => {
    const mesh = await put({ kind: 'mesh', name: 'beam', content: Buffer.from('mesh') });
    const id = mesh.response.work_product.id as string;
    expect((await rpc('GetConstraints', { id })).response).toMatchObject({ work_product_id: id, branch: 'main', constraints: [] });

    const before = await counts();
    const bad = await failure(
      rpc('SetConstraints', { id, constraints: [struct({ kind: 'max_von_mises_stress', max_von_mises_mpa: 'high' })] }),
    );
    expect(bad).toMatchObject({ code: status.INVALID_ARGUMENT, errorCode: 'VALIDATION_FAILED' });
    expect(bad.status?.fieldViolations.map((violation) => violation.field)).toEqual(['constraints[0]', 'constraints[0].max_von_mises_mpa']);
    const unknownKind = await failure(rpc('SetConstraints', { id, constraints: [struct({ kind: 'vibes' })] }));
    expect(unknownKind.status?.fieldViolations.map((violation) => violation.field)).toEqual(['constraints[0].kind']);
    expect(await counts()).toEqual(before);

    const good = await rpc('SetConstraints', {
      id,
      constraints: [struct({ kind: 'max_von_mises_stress', max_von_mises_mpa: 235, safety_factor: 1.5, material: 's235' })],
    });
    expect(asRest(good.response)).toMatchObject({
      work_product_id: id,
      revision: 1,
      created_by: 'bot',
      constraints: [{ kind: 'max_von_mises_stress', max_von_mises_mpa: 235, safety_factor: 1.5, material: 's235' }],
    });
    const read = await rpc('GetConstraints', { id });
    expect(asRest(read.response)).toEqual(withoutNulls((await rest(`/v1/twin/branches/main/work-products/${id}/constraints`)).body));
  });

  it('shows provenance: who wrote a revision and which executions read it; an execution’s reads and writes', async () => {
    const source = await put({ kind: 'report', name: 'notes', content: Buffer.from('hello twin') });
    const sourceId = source.response.work_product.id as string;
    await rpc('SetConstraints', { id: sourceId, constraints: [struct({ kind: 'max_elements', max_elements: 500 })] });
    await rpc('CreateBranch', { name: 'experiment' });
    const run = await unary(
      skills,
      'ExecuteSkill',
      { name: 'twin_upper', input: struct({ work_product_id: sourceId }), branch: 'experiment', wait_seconds: 20 },
      agent(),
    );
    const execution = run.response.execution;
    expect(execution).toMatchObject({ status: 'SUCCEEDED', branch: 'experiment' });
    const resultId = execution.output.fields.result_id.stringValue as string;

    const access = await rpc('GetExecutionTwinAccess', { id: execution.id });
    expect(access.response).toMatchObject({
      execution_id: execution.id,
      branch: 'experiment',
      read: [{ work_product_id: sourceId, revision: 1 }],
      // The constraints revision the result was judged against, beside the content revision read.
      constraints_read: [{ work_product_id: sourceId, revision: 1, branch: 'main' }],
      wrote: [{ work_product_id: resultId, revision: 1, branch: 'experiment', uri: `twin://experiment/${resultId}` }],
    });
    expect(asRest(access.response.constraints_read)).toEqual([
      expect.objectContaining({ constraints: [{ kind: 'max_elements', max_elements: 500 }] }),
    ]);
    expect(asRest(access.response)).toEqual(withoutNulls((await rest(`/v1/executions/${execution.id}/twin`)).body));

    const written = await rpc('GetProvenance', { id: resultId, revision: 1 });
    expect(written.response).toMatchObject({
      work_product_id: resultId,
      revision: { revision: 1, branch: 'experiment', execution_id: execution.id },
      written_by: {
        identity: `execution:${execution.id}`,
        execution_id: execution.id,
        read: [{ work_product_id: sourceId, revision: 1 }],
        constraints_read: [{ work_product_id: sourceId, revision: 1, branch: 'main' }],
      },
    });
    expect(asRest(written.response)).toEqual(withoutNulls((await rest(`/v1/twin/work-products/${resultId}/revisions/1/provenance`)).body));
    const read = await rpc('GetProvenance', { id: sourceId, revision: 1 });
    expect(read.response.written_by).toMatchObject({ identity: 'bot' });
    expect(read.response.read_by.map((entry: any) => entry.execution_id)).toEqual([execution.id]);
    expect(asRest(read.response)).toEqual(withoutNulls((await rest(`/v1/twin/work-products/${sourceId}/revisions/1/provenance`)).body));
    // The result is on the execution's branch only.
    expect(await failure(rpc('GetWorkProduct', { id: resultId }))).toMatchObject({ code: status.NOT_FOUND });

    for (const [request, code, errorCode] of [
      [{ id: sourceId, revision: 7 }, status.NOT_FOUND, 'REVISION_NOT_FOUND'],
      [{ id: sourceId }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      [{ id: sourceId, revision: 4294967295 }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      [{ id: 'not-a-uuid', revision: 1 }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
    ] as const) {
      expect(await failure(rpc('GetProvenance', request))).toMatchObject({ code, errorCode });
    }
    expect(await failure(rpc('GetExecutionTwinAccess', { id: UNKNOWN_ID }))).toMatchObject({
      code: status.NOT_FOUND,
      errorCode: 'EXECUTION_NOT_FOUND',
    });
  });

  it('needs a known token for every write, even where reads are open; reads follow the read rule', async () => {
    const existing = await put({ kind: 'mesh', name: 'guarded', content: Buffer.from('x') });
    const id = existing.response.work_product.id as string;
    const before = await counts();
    const writes: [string, object][] = [
      ['CreateBranch', { name: 'anonymous' }],
      ['PutWorkProduct', { kind: 'mesh', name: 'a', content: Buffer.from('x'), media_type: 'text/plain' }],
      ['PutWorkProduct', { id, content: Buffer.from('y'), media_type: 'text/plain' }],
      ['ArchiveWorkProduct', { id }],
      ['SetConstraints', { id, constraints: [struct({ kind: 'max_elements', max_elements: 5 })] }],
    ];
    const malformed = new Metadata();
    malformed.set('authorization', `Token ${AGENT_TOKEN}`);
    for (const [method, request] of writes) {
      for (const target of [twin, openTwin]) {
        expect(await failure(unary(target, method, request))).toMatchObject({ code: status.UNAUTHENTICATED, errorCode: 'UNAUTHENTICATED' });
        expect(await failure(unary(target, method, request, bearer('unknown-token-123')))).toMatchObject({ code: status.UNAUTHENTICATED });
        expect(await failure(unary(target, method, request, malformed))).toMatchObject({ code: status.UNAUTHENTICATED });
      }
    }
    expect(await counts()).toEqual(before);

    // Reads: a token where AGENT_TOKENS is set, none needed where it is not (an unknown one is refused everywhere).
    expect(await failure(unary(twin, 'ListBranches', {}))).toMatchObject({ code: status.UNAUTHENTICATED });
    expect(await failure(unary(twin, 'GetWorkProduct', { id }))).toMatchObject({ code: status.UNAUTHENTICATED });
    expect((await unary(openTwin, 'GetWorkProduct', { id })).response.id).toBe(id);
    expect((await unary(openTwin, 'ListBranches', {})).response.items.length).toBeGreaterThan(0);
    expect(await failure(unary(openTwin, 'ListBranches', {}, bearer('unknown-token-123')))).toMatchObject({
      code: status.UNAUTHENTICATED,
    });
    // A write with a known token on the open replica (it has no agent tokens) is recorded with its identity.
    const written = await unary(
      openTwin,
      'PutWorkProduct',
      { id, content: Buffer.from('z'), media_type: 'text/plain' },
      bearer(ADMIN_TOKEN),
    );
    expect(written.response.work_product.current).toMatchObject({ revision: 2, created_by: 'root' });
  });

  it('refuses bad writes with the status and stable code REST gives them, and writes nothing', async () => {
    const existing = await put({ kind: 'mesh', name: 'keep', content: Buffer.from('x') });
    const id = existing.response.work_product.id as string;
    const before = await counts();
    const over = Buffer.alloc(MAX_REVISION_BYTES + 1, 0x61);
    // Above grpc-js's 4 MiB default: the server reads it, and the twin's own limit answers.
    const wellOver = Buffer.alloc(5 * 1024 * 1024, 0x62);
    const newProduct = { kind: 'mesh', name: 'a', content: Buffer.from('x'), media_type: 'text/plain' };
    const cases: [object, status, string, string?][] = [
      [{ ...newProduct, branch: 'no-such-branch' }, status.NOT_FOUND, 'TWIN_BRANCH_NOT_FOUND'],
      [{ ...newProduct, branch: 'Main/..' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED', 'branch'],
      [{ ...newProduct, content: over }, status.RESOURCE_EXHAUSTED, 'TWIN_TOO_LARGE'],
      [{ ...newProduct, content: wellOver }, status.RESOURCE_EXHAUSTED, 'TWIN_TOO_LARGE'],
      [{ id, content: over, media_type: 'text/plain' }, status.RESOURCE_EXHAUSTED, 'TWIN_TOO_LARGE'],
      [{ ...newProduct, media_type: 'application/x-www-form-urlencoded' }, status.INVALID_ARGUMENT, 'UNSUPPORTED_MEDIA_TYPE'],
      [{ ...newProduct, media_type: 'multipart/form-data; boundary=x' }, status.INVALID_ARGUMENT, 'UNSUPPORTED_MEDIA_TYPE'],
      [{ ...newProduct, media_type: '' }, status.INVALID_ARGUMENT, 'UNSUPPORTED_MEDIA_TYPE'],
      [{ ...newProduct, name: 'line\nbreak' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED', 'name'],
      [{ ...newProduct, name: 'nul\u0000' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED', 'name'],
      [{ ...newProduct, name: ' padded ' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED', 'name'],
      [{ ...newProduct, name: '' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED', 'name'],
      [{ ...newProduct, kind: 'Mesh Kind' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED', 'kind'],
      [{ ...newProduct, kind: '' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED', 'kind'],
      [{ ...newProduct, metadata: struct({ blob: 'x'.repeat(20_000) }) }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED', 'metadata'],
      [{ ...newProduct, id: 'not-a-uuid' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED', 'id'],
      [{ ...newProduct, id: UNKNOWN_ID }, status.NOT_FOUND, 'WORK_PRODUCT_NOT_FOUND'],
      [{ id, kind: 'report', content: Buffer.from('y'), media_type: 'text/plain' }, status.FAILED_PRECONDITION, 'KIND_MISMATCH'],
      [{ id, name: 'renamed', content: Buffer.from('y'), media_type: 'text/plain' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED', 'name'],
    ];
    for (const [request, code, errorCode, field] of cases) {
      const refused = await failure(unary(twin, 'PutWorkProduct', { branch: 'main', ...request }, agent()));
      expect({ code: refused.code, errorCode: refused.errorCode }).toEqual({ code, errorCode });
      expect(refused.status?.errorInfo?.reason).toBe(errorCode);
      if (field) expect(refused.status?.fieldViolations.map((violation) => violation.field)).toContain(field);
    }
    const tooLarge = await failure(put({ ...newProduct, content: over }));
    expect(tooLarge.status?.errorInfo?.metadata).toMatchObject({ limit: 'TWIN_MAX_REVISION_BYTES', max_bytes: String(MAX_REVISION_BYTES) });

    const future = { seconds: String(Math.floor(Date.now() / 1000) + 86_400), nanos: 0 };
    const branchCases: [object, status, string][] = [
      [{ name: 'main' }, status.ALREADY_EXISTS, 'TWIN_BRANCH_EXISTS'],
      [{ name: 'x', from: 'nope' }, status.NOT_FOUND, 'TWIN_BRANCH_NOT_FOUND'],
      [{ name: 'UPPER' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      [{ name: 'new\nline' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      [{ name: 'nul\u0000' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      [{ name: '' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      [{ name: 'future', at: future }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      [{ name: 'ancient', at: { seconds: '-99999999999999', nanos: 0 } }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
    ];
    for (const [request, code, errorCode] of branchCases) {
      const refused = await failure(rpc('CreateBranch', request));
      expect({ code: refused.code, errorCode: refused.errorCode }).toEqual({ code, errorCode });
    }
    for (const [method, request] of [
      ['ArchiveWorkProduct', { id: UNKNOWN_ID }],
      ['ArchiveWorkProduct', { branch: 'no-such-branch', id }],
      ['SetConstraints', { branch: 'no-such-branch', id, constraints: [] }],
      ['SetConstraints', { id: UNKNOWN_ID, constraints: [] }],
    ] as const) {
      expect(await failure(rpc(method, request))).toMatchObject({ code: status.NOT_FOUND });
    }
    expect(await counts()).toEqual(before);
  });

  it('answers reads of unknown or hostile branches and ids NOT_FOUND or INVALID_ARGUMENT, never INTERNAL', async () => {
    const cases: [string, object, status, string][] = [
      ['GetBranch', { name: 'no-such-branch' }, status.NOT_FOUND, 'TWIN_BRANCH_NOT_FOUND'],
      ['GetBranch', { name: '' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      ['GetBranch', { name: '../main' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      ['ListWorkProducts', { branch: 'no-such-branch' }, status.NOT_FOUND, 'TWIN_BRANCH_NOT_FOUND'],
      ['ListWorkProducts', { branch: 'bad\u0000branch' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      ['ListWorkProducts', { limit: 101 }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      ['ListWorkProducts', { cursor: 'not a cursor' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      ['ListWorkProducts', { cursor: 'not-a-uuid' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      ['ListWorkProducts', { kind: 'Not A Kind' }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      ['ListBranches', { limit: 1000 }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      ['GetWorkProduct', { id: UNKNOWN_ID, branch: 'no-such-branch' }, status.NOT_FOUND, 'TWIN_BRANCH_NOT_FOUND'],
      ['GetWorkProduct', { id: UNKNOWN_ID }, status.NOT_FOUND, 'WORK_PRODUCT_NOT_FOUND'],
      ['GetWorkProduct', {}, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      ['ListRevisions', { id: 'x'.repeat(5000) }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      ['GetWorkProductContent', { id: UNKNOWN_ID, revision: 4294967295 }, status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      ['GetConstraints', { id: UNKNOWN_ID }, status.NOT_FOUND, 'WORK_PRODUCT_NOT_FOUND'],
      ['GetExecutionTwinAccess', { id: 'not-an-id' }, status.NOT_FOUND, 'EXECUTION_NOT_FOUND'],
    ];
    for (const [method, request, code, errorCode] of cases) {
      const refused = await failure(rpc(method, request));
      expect({ method, code: refused.code, errorCode: refused.errorCode }).toEqual({ method, code, errorCode });
    }
  });

  it('reads requests past TWIN_MAX_REVISION_BYTES up to the receive limit (TWIN_TOO_LARGE); refuses larger ones at once, never a hang or INTERNAL', async () => {
    const before = await counts();
    // Between the configured revision limit and the server's receive limit (maxRequestBytes: at least 32 MiB).
    const overLimit = await failure(put({ kind: 'mesh', name: 'big', content: Buffer.alloc(8 * 1024 * 1024, 0x64) }));
    expect(overLimit).toMatchObject({ code: status.RESOURCE_EXHAUSTED, errorCode: 'TWIN_TOO_LARGE' });
    const started = Date.now();
    const refused = await failure(put({ kind: 'mesh', name: 'huge', content: Buffer.alloc(34 * 1024 * 1024, 0x63) }));
    expect(refused.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await counts()).toEqual(before);
    // The connection stays usable.
    expect((await rpc('ListBranches', {})).response.items.length).toBeGreaterThan(0);
  });

  it('ExecuteSkill refuses a branch that does not exist (NOT_FOUND) or is malformed, before anything is queued', async () => {
    const before = await counts();
    const execute = (branch: string) =>
      unary(skills, 'ExecuteSkill', { name: 'twin_upper', input: struct({ work_product_id: UNKNOWN_ID }), branch }, agent());
    const unknown = await failure(execute('nowhere'));
    expect(unknown).toMatchObject({ code: status.NOT_FOUND, errorCode: 'TWIN_BRANCH_NOT_FOUND' });
    expect(unknown.status?.errorInfo?.metadata).toMatchObject({ branch: 'nowhere' });
    expect(await failure(execute('../main'))).toMatchObject({ code: status.INVALID_ARGUMENT, errorCode: 'VALIDATION_FAILED' });
    expect(await counts()).toEqual(before);
  });
});
