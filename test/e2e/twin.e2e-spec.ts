import { Client, ProtocolError, ResourceNotFoundError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, eventually, EXECUTION_SKILLS_ROOT, obliterateQueue, readSse } from '../support/executions.js';
import { ADMIN_TOKEN, AGENT_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';

const MAX_REVISION_BYTES = 4096;

/**
 * The digital twin over REST, and skills reading and writing it through the executor: uploads and
 * downloads, branches, constraints, provenance, and the refusals that must change nothing.
 */
describe('digital twin end to end (REST, executor)', () => {
  let db: TestDatabase;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  let pool: pg.Pool;
  const query = async (sql: string) => (await pool.query(sql)).rows;
  const queuePrefix = `test-twin-${process.pid}-${Date.now()}`;

  const upload = (
    branch: string,
    query: string,
    body: string | Buffer,
    contentType: string | null = 'text/plain',
    token: string | null = AGENT_TOKEN,
  ) =>
    fetch(`${registry.baseUrl}/v1/twin/branches/${branch}/work-products?${query}`, {
      method: 'POST',
      headers: { ...(contentType ? { 'content-type': contentType } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body,
    });
  const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as any });
  const get = (path: string) => call(registry.baseUrl, 'GET', path, { token: AGENT_TOKEN });
  const post = (path: string, body: string | Buffer, headers: Record<string, string>) =>
    fetch(`${registry.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${AGENT_TOKEN}`, ...headers }, body });
  const content = (id: string, query = '', branch = 'main') =>
    fetch(`${registry.baseUrl}/v1/twin/branches/${branch}/work-products/${id}/content${query}`, {
      headers: { authorization: `Bearer ${AGENT_TOKEN}` },
    });
  const FORM = 'application/vnd.skill-registry.twin-upload+json';
  const counts = async () => {
    const rows = await query(
      `SELECT (SELECT count(*) FROM work_products)::int AS products, (SELECT count(*) FROM work_product_revisions)::int AS revisions,
              (SELECT count(*) FROM twin_branches)::int AS branches, (SELECT count(*) FROM work_product_constraints)::int AS constraints`,
    );
    return rows[0];
  };

  beforeAll(async () => {
    db = await createTestDatabase('twin');
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    registry = await startRegistry({
      databaseUrl: db.url,
      skillPaths: [EXECUTION_SKILLS_ROOT],
      queuePrefix,
      agentTokens: true,
      env: { TWIN_MAX_REVISION_BYTES: String(MAX_REVISION_BYTES) },
    });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    await activate(registry.baseUrl, ['twin_upper']);
  });

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await pool?.end();
    await db?.drop();
  });

  // Content is written by handlers and agents, in the media type they name, and served from the registry's origin.
  it('serves a work product a browser would open as a page as a download, sandboxed and nosniff', async () => {
    const created = await json(await upload('main', 'kind=report&name=page', '<script>alert(1)</script>', 'text/html'));
    expect(created.status).toBe(201);
    const content = await fetch(`${registry.baseUrl}/v1/twin/branches/main/work-products/${created.body.id}/content`, {
      headers: { authorization: `Bearer ${AGENT_TOKEN}` },
    });
    expect(content.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(content.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="${created.body.id}"`));
    expect(content.headers.get('content-security-policy')).toMatch(/^sandbox; default-src 'none'/);
    expect(content.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('uploads raw content, serves it back byte for byte with its hash as ETag, and revises it', async () => {
    const created = await json(
      await upload(
        'main',
        'kind=cad_model&name=bracket&metadata=%7B%22units%22%3A%22mm%22%7D',
        'Box(1) = {0,0,0,1,2,3};',
        'text/x-gmsh-geo',
      ),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: 'cad_model',
      name: 'bracket',
      branch: 'main',
      uri: `twin://main/${created.body.id}`,
      created_by: 'bot',
      current: { revision: 1, media_type: 'text/x-gmsh-geo', size: 23, metadata: { units: 'mm' }, created_by: 'bot', execution_id: null },
    });
    const id = created.body.id as string;

    const content = await fetch(`${registry.baseUrl}/v1/twin/branches/main/work-products/${id}/content`, {
      headers: { authorization: `Bearer ${AGENT_TOKEN}` },
    });
    expect(content.status).toBe(200);
    expect(await content.text()).toBe('Box(1) = {0,0,0,1,2,3};');
    expect(content.headers.get('content-type')).toBe('text/x-gmsh-geo; charset=utf-8');
    const etag = content.headers.get('etag') as string;
    expect(etag).toBe(`"${created.body.current.content_hash}"`);
    const notModified = await fetch(`${registry.baseUrl}/v1/twin/branches/main/work-products/${id}/content`, {
      headers: { authorization: `Bearer ${AGENT_TOKEN}`, 'if-none-match': etag },
    });
    expect(notModified.status).toBe(304);

    const revise = (body: string) =>
      fetch(`${registry.baseUrl}/v1/twin/branches/main/work-products/${id}/revisions`, {
        method: 'POST',
        headers: { 'content-type': 'text/x-gmsh-geo', authorization: `Bearer ${AGENT_TOKEN}` },
        body,
      });
    expect((await revise('Box(1) = {0,0,0,2,2,3};')).status).toBe(201);
    // The same bytes again: nothing new is written.
    const same = await json(await revise('Box(1) = {0,0,0,2,2,3};'));
    expect(same.status).toBe(200);
    expect(same.body.current.revision).toBe(2);
    const revisions = await get(`/v1/twin/branches/main/work-products/${id}/revisions`);
    expect(revisions.body.items.map((revision: any) => revision.revision)).toEqual([2, 1]);
    const first = await fetch(`${registry.baseUrl}/v1/twin/branches/main/work-products/${id}/content?revision=1`, {
      headers: { authorization: `Bearer ${AGENT_TOKEN}` },
    });
    expect(await first.text()).toBe('Box(1) = {0,0,0,1,2,3};');
    expect(first.headers.get('cache-control')).toContain('immutable');
  });

  it('keeps branches apart: a branch sees main as it was, its writes stay on it', async () => {
    const created = await json(await upload('main', 'kind=netlist&name=divider', 'R1 in out 1k'));
    const branch = await call(registry.baseUrl, 'POST', '/v1/twin/branches', { token: AGENT_TOKEN, body: { name: 'rev-b' } });
    expect(branch.status).toBe(201);
    expect(branch.body).toMatchObject({ name: 'rev-b', parent: 'main', purpose: 'work', created_by: 'bot' });
    const onBranch = await json(await upload('rev-b', 'kind=netlist&name=branch only', 'R2 a b 2k'));
    expect((await get(`/v1/twin/branches/rev-b/work-products/${created.body.id}`)).status).toBe(200);
    expect((await get(`/v1/twin/branches/main/work-products/${onBranch.body.id}`)).body).toMatchObject({
      status: 404,
      code: 'WORK_PRODUCT_NOT_FOUND',
    });
    const mainNetlists = await get('/v1/twin/branches/main/work-products?kind=netlist');
    expect(mainNetlists.body.items.map((item: any) => item.id)).toEqual([created.body.id]);
    expect((await get('/v1/twin/branches')).body.items.map((item: any) => item.name)).toEqual(['main', 'rev-b']);
  });

  it('sets constraints checked against their kind, per branch', async () => {
    const created = await json(await upload('main', 'kind=mesh&name=beam', 'mesh'));
    const path = `/v1/twin/branches/main/work-products/${created.body.id}/constraints`;
    const bad = await call(registry.baseUrl, 'PUT', path, {
      token: AGENT_TOKEN,
      body: { constraints: [{ kind: 'max_von_mises_stress', max_von_mises_mpa: 'high' }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((error: any) => error.field)).toEqual(['constraints[0]', 'constraints[0].max_von_mises_mpa']);
    const good = await call(registry.baseUrl, 'PUT', path, {
      token: AGENT_TOKEN,
      body: { constraints: [{ kind: 'max_von_mises_stress', max_von_mises_mpa: 235, safety_factor: 1.5, material: 's235' }] },
    });
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({
      revision: 1,
      created_by: 'bot',
      constraints: [{ kind: 'max_von_mises_stress', max_von_mises_mpa: 235 }],
    });
    expect((await get(path)).body.constraints).toHaveLength(1);
  });

  it('refuses bad writes with a clear 4xx and writes nothing', async () => {
    const existing = await json(await upload('main', 'kind=mesh&name=keep', 'x'));
    const before = await counts();
    const big = 'x'.repeat(MAX_REVISION_BYTES + 1);
    const cases: [Response | Promise<Response>, number, string][] = [
      [upload('main', 'kind=mesh&name=a', 'x', 'text/plain', null), 401, 'UNAUTHENTICATED'],
      [upload('no-such-branch', 'kind=mesh&name=a', 'x'), 404, 'TWIN_BRANCH_NOT_FOUND'],
      [upload('Main%2F..', 'kind=mesh&name=a', 'x'), 400, 'VALIDATION_FAILED'],
      [upload('main', 'kind=mesh&name=big', big), 413, 'TWIN_TOO_LARGE'],
      [upload('main', 'kind=mesh&name=form', 'a=b', 'application/x-www-form-urlencoded'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [upload('main', 'kind=mesh&name=form', '--x--', 'multipart/form-data; boundary=x'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [upload('main', 'kind=mesh&name=untyped', Buffer.from('x'), null), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [upload('main', 'kind=mesh&name=line%0Abreak', 'x'), 400, 'VALIDATION_FAILED'],
      [upload('main', 'kind=mesh&name=nul%00', 'x'), 400, 'VALIDATION_FAILED'],
      [upload('main', 'kind=Mesh%20Kind&name=a', 'x'), 400, 'VALIDATION_FAILED'],
      [upload('main', 'kind=mesh', 'x'), 400, 'VALIDATION_FAILED'],
      [upload('main', 'kind=mesh&name=a&metadata=%5B1%5D', 'x'), 400, 'VALIDATION_FAILED'],
      [upload('main', 'kind=mesh&name=a&surprise=1', 'x'), 400, 'VALIDATION_FAILED'],
      [
        fetch(`${registry.baseUrl}/v1/twin/branches/main/work-products/${existing.body.id}/revisions`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain', authorization: `Bearer ${AGENT_TOKEN}` },
          body: big,
        }),
        413,
        'TWIN_TOO_LARGE',
      ],
      [
        fetch(`${registry.baseUrl}/v1/twin/branches/main/work-products/00000000-0000-4000-8000-000000000000/revisions`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain', authorization: `Bearer ${AGENT_TOKEN}` },
          body: 'x',
        }),
        404,
        'WORK_PRODUCT_NOT_FOUND',
      ],
    ];
    for (const [pending, status, code] of cases) {
      const { status: got, body } = await json(await pending);
      expect({ got, code: body.code }).toEqual({ got: status, code });
      expect(body.detail).toEqual(expect.any(String));
    }
    const branchCases = [
      [{ name: 'main' }, 409, 'TWIN_BRANCH_EXISTS'],
      [{ name: 'x', from: 'nope' }, 404, 'TWIN_BRANCH_NOT_FOUND'],
      [{ name: 'UPPER' }, 400, 'VALIDATION_FAILED'],
      [{ name: 'future', at: '2999-01-01T00:00:00Z' }, 400, 'VALIDATION_FAILED'],
      [{ name: 'x', at: 'yesterday' }, 400, 'VALIDATION_FAILED'],
    ] as const;
    for (const [body, status, code] of branchCases) {
      const response = await call(registry.baseUrl, 'POST', '/v1/twin/branches', { token: AGENT_TOKEN, body });
      expect({ status: response.status, code: response.body.code }).toEqual({ status, code });
    }
    expect((await call(registry.baseUrl, 'POST', '/v1/twin/branches', { body: { name: 'anonymous' } })).status).toBe(401);
    expect(await counts()).toEqual(before);
  });

  it('lets a skill read and write the twin on the execution branch, with events and provenance', async () => {
    const source = await json(await upload('main', 'kind=report&name=notes', 'hello twin'));
    await call(registry.baseUrl, 'PUT', `/v1/twin/branches/main/work-products/${source.body.id}/constraints`, {
      token: AGENT_TOKEN,
      body: { constraints: [{ kind: 'max_elements', max_elements: 500 }] },
    });
    await call(registry.baseUrl, 'POST', '/v1/twin/branches', { token: AGENT_TOKEN, body: { name: 'experiment' } });
    const reportsOnMainBefore = (await get('/v1/twin/branches/main/work-products?kind=report')).body.items.length;

    const run = await call(registry.baseUrl, 'POST', '/v1/skills/twin_upper/executions?wait=20', {
      token: AGENT_TOKEN,
      body: { input: { work_product_id: source.body.id, other_branch: 'main' }, branch: 'experiment' },
    });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'SUCCEEDED', branch: 'experiment' });
    expect(run.body.output).toMatchObject({
      branch: 'experiment',
      source_revision: 1,
      result_revision: 1,
      constraints: [{ kind: 'max_elements', max_elements: 500 }],
      reports_elsewhere: reportsOnMainBefore,
    });
    const resultId = run.body.output.result_id as string;
    // The result is on the execution's branch only; main is untouched.
    const result = await fetch(`${registry.baseUrl}/v1/twin/branches/experiment/work-products/${resultId}/content`, {
      headers: { authorization: `Bearer ${AGENT_TOKEN}` },
    });
    expect(await result.text()).toBe('HELLO TWIN');
    expect((await get(`/v1/twin/branches/main/work-products/${resultId}`)).status).toBe(404);
    expect((await get('/v1/twin/branches/main/work-products?kind=report')).body.items).toHaveLength(reportsOnMainBefore);

    const access = await get(`/v1/executions/${run.body.id}/twin`);
    // The constraints revision the result was judged against, beside the content revision read.
    const judgedAgainst = {
      work_product_id: source.body.id,
      revision: 1,
      branch: 'main',
      constraints: [{ kind: 'max_elements', max_elements: 500 }],
    };
    expect(access.body).toMatchObject({
      execution_id: run.body.id,
      branch: 'experiment',
      read: [{ work_product_id: source.body.id, revision: 1 }],
      constraints_read: [judgedAgainst],
      wrote: [{ work_product_id: resultId, revision: 1, branch: 'experiment', uri: `twin://experiment/${resultId}` }],
    });
    const provenance = await get(`/v1/twin/work-products/${resultId}/revisions/1/provenance`);
    expect(provenance.body.written_by).toEqual({
      identity: `execution:${run.body.id}`,
      execution_id: run.body.id,
      read: [{ work_product_id: source.body.id, revision: 1, at: expect.any(String) }],
      constraints_read: [{ ...judgedAgainst, at: expect.any(String) }],
    });
    const sourceProvenance = await get(`/v1/twin/work-products/${source.body.id}/revisions/1/provenance`);
    expect(sourceProvenance.body.read_by.map((read: any) => read.execution_id)).toContain(run.body.id);
    // A token wrote the source: no execution read anything for it.
    expect(sourceProvenance.body.written_by).toEqual({ identity: 'bot', execution_id: null, read: [], constraints_read: [] });

    // New constraints: the next run is judged against revision 2, and its provenance says so.
    await call(registry.baseUrl, 'PUT', `/v1/twin/branches/experiment/work-products/${source.body.id}/constraints`, {
      token: AGENT_TOKEN,
      body: { constraints: [{ kind: 'max_elements', max_elements: 50 }] },
    });
    const again = await call(registry.baseUrl, 'POST', '/v1/skills/twin_upper/executions?wait=20', {
      token: AGENT_TOKEN,
      body: { input: { work_product_id: source.body.id }, branch: 'experiment' },
    });
    expect(again.body.status).toBe('SUCCEEDED');
    expect((await get(`/v1/executions/${again.body.id}/twin`)).body.constraints_read).toEqual([
      {
        work_product_id: source.body.id,
        revision: 2,
        branch: 'experiment',
        constraints: [{ kind: 'max_elements', max_elements: 50 }],
        at: expect.any(String),
      },
    ]);

    const events = await readSse(registry.baseUrl, run.body.id, { authorization: `Bearer ${AGENT_TOKEN}` });
    const types = events.map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['twin_read', 'twin_written']));
    expect(types.indexOf('twin_read')).toBeLessThan(types.indexOf('twin_written'));
  });

  it('fails PRECONDITION_FAILED naming the work product and the branch when it is not there', async () => {
    const before = new Date();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const onMain = await json(await upload('main', 'kind=report&name=main only', 'x'));
    // Branched from main as it was just before the work product existed there.
    const branch = await call(registry.baseUrl, 'POST', '/v1/twin/branches', {
      token: ADMIN_TOKEN,
      body: { name: 'before-it', at: before.toISOString() },
    });
    expect(branch.status).toBe(201);
    const run = await call(registry.baseUrl, 'POST', '/v1/skills/twin_upper/executions?wait=20', {
      token: AGENT_TOKEN,
      body: { input: { work_product_id: onMain.body.id }, branch: 'before-it' },
    });
    expect(run.body).toMatchObject({ status: 'FAILED', branch: 'before-it' });
    expect(run.body.error.code).toBe('PRECONDITION_FAILED');
    expect(run.body.error.message).toContain(onMain.body.id);
    expect(run.body.error.message).toContain('before-it');
  });

  it('refuses an execution on a branch that does not exist, before anything is queued', async () => {
    const before = (await query(`SELECT count(*)::int AS n FROM executions`))[0].n;
    const unknown = await call(registry.baseUrl, 'POST', '/v1/skills/twin_upper/executions', {
      token: AGENT_TOKEN,
      body: { input: { work_product_id: '00000000-0000-4000-8000-000000000000' }, branch: 'nowhere' },
    });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'TWIN_BRANCH_NOT_FOUND' } });
    const hostile = await call(registry.baseUrl, 'POST', '/v1/skills/twin_upper/executions', {
      token: AGENT_TOKEN,
      body: { input: { work_product_id: '00000000-0000-4000-8000-000000000000' }, branch: '../main' },
    });
    expect(hostile).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect((await query(`SELECT count(*)::int AS n FROM executions`))[0].n).toBe(before);
  });

  it('keeps an archived work product readable by revision number, lists it with archived=true, and restores it with a new revision', async () => {
    const created = await json(await upload('main', 'kind=report&name=shelved', 'first'));
    const id = created.body.id as string;
    const path = `/v1/twin/branches/main/work-products/${id}`;
    expect((await json(await post(`${path}/revisions`, 'second', { 'content-type': 'text/plain' }))).status).toBe(201);
    const archived = await call(registry.baseUrl, 'POST', `${path}/archive`, { token: AGENT_TOKEN });
    expect(archived.body).toMatchObject({ revision: 3, archived: true, content_hash: null });

    // Hidden as current: the answer says it is archived and how to reach it.
    const hidden = await get(path);
    expect(hidden).toMatchObject({ status: 404, body: { code: 'WORK_PRODUCT_NOT_FOUND', archived: true, archived_revision: 3 } });
    expect(hidden.body.detail).toContain('archived');
    expect((await json(await content(id))).body).toMatchObject({ status: 404, code: 'WORK_PRODUCT_NOT_FOUND' });
    // Its revisions stay readable by number (404 before), and listed.
    for (const [revision, text] of [
      [1, 'first'],
      [2, 'second'],
    ] as const) {
      const read = await content(id, `?revision=${revision}`);
      expect({ status: read.status, text: await read.text() }).toEqual({ status: 200, text });
      expect(read.headers.get('x-revision')).toBe(String(revision));
      expect(read.headers.get('cache-control')).toContain('immutable');
    }
    expect((await json(await content(id, '?revision=3'))).body).toMatchObject({ status: 404, code: 'REVISION_NOT_FOUND' });
    const revisions = await get(`${path}/revisions`);
    expect(revisions.body.items.map((item: any) => [item.revision, item.archived])).toEqual([
      [3, true],
      [2, false],
      [1, false],
    ]);
    // Listed only where asked for: archived=true.
    const listed = async (query: string) => (await get(`/v1/twin/branches/main/work-products?kind=report&name=shelved${query}`)).body;
    expect((await listed('')).items).toEqual([]);
    expect((await listed('&archived=true')).items).toEqual([
      expect.objectContaining({ id, kind: 'report', name: 'shelved', current: expect.objectContaining({ revision: 3, archived: true }) }),
    ]);
    expect((await get('/v1/twin/branches/main/work-products?archived=maybe')).body).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      errors: [{ field: 'archived' }],
    });

    // A new revision restores it, even with the bytes it had (404 before); the revisions record the archive and the restore.
    const restored = await json(await post(`${path}/revisions`, 'second', { 'content-type': 'text/plain' }));
    expect(restored).toMatchObject({ status: 201, body: { id, current: { revision: 4, archived: false, created_by: 'bot' } } });
    expect((await get(path)).body.current.revision).toBe(4);
    expect(await (await content(id)).text()).toBe('second');
    expect((await listed('')).items.map((item: any) => item.id)).toEqual([id]);
    expect((await listed('&archived=true')).items).toEqual([]);
    expect((await get(`${path}/revisions`)).body.items.map((item: any) => [item.revision, item.archived, item.created_by])).toEqual([
      [4, false, 'bot'],
      [3, true, 'bot'],
      [2, false, 'bot'],
      [1, false, 'bot'],
    ]);
  });

  it('takes metadata in the X-Twin-Metadata header or the JSON form (which reaches the full 16 KiB), read as strictly as a JSON body', async () => {
    const products = '/v1/twin/branches/main/work-products';
    const viaHeader = await json(
      await post(`${products}?kind=mesh&name=headed`, 'x', {
        'content-type': 'text/plain',
        'x-twin-metadata': '{"units":"mm","note":"caf\\u00e9"}',
      }),
    );
    expect(viaHeader).toMatchObject({ status: 201, body: { current: { metadata: { units: 'mm', note: 'café' } } } });

    // The JSON form: 16 KiB of metadata (more than the 16 KiB request head can carry with the rest), binary content in base64.
    const metadata = { notes: 'n'.repeat(16 * 1024 - 20) };
    expect(Buffer.byteLength(JSON.stringify(metadata))).toBeLessThanOrEqual(16 * 1024);
    const bytes = Buffer.from([0, 255, 1, 254, 2, 253]);
    const form = (body: unknown, path = products) => post(path, JSON.stringify(body), { 'content-type': FORM });
    const viaForm = await json(
      await form({
        kind: 'mesh',
        name: 'formed',
        media_type: 'application/octet-stream',
        content_base64: bytes.toString('base64'),
        metadata,
      }),
    );
    expect(viaForm).toMatchObject({ status: 201, body: { kind: 'mesh', name: 'formed', current: { revision: 1, size: 6, metadata } } });
    const id = viaForm.body.id as string;
    expect(Buffer.compare(Buffer.from(await (await content(id)).arrayBuffer()), bytes)).toBe(0);
    const revised = await json(
      await form({ media_type: 'text/plain', content: 'now text', metadata: { v: 2 } }, `${products}/${id}/revisions`),
    );
    expect(revised).toMatchObject({ status: 201, body: { current: { revision: 2, media_type: 'text/plain', metadata: { v: 2 } } } });
    expect(await (await content(id)).text()).toBe('now text');

    const before = await counts();
    const refusals: [Promise<Response>, number, string, string?][] = [
      // Query metadata is checked like a JSON body (both were stored before).
      [upload('main', `kind=mesh&name=a&metadata=${encodeURIComponent('{"a":1,"a":2}')}`, 'x'), 400, 'VALIDATION_FAILED', 'metadata'],
      [
        upload('main', `kind=mesh&name=a&metadata=${encodeURIComponent('{"__proto__":{"admin":true}}')}`, 'x'),
        400,
        'VALIDATION_FAILED',
        'metadata',
      ],
      [
        post(`${products}?kind=mesh&name=a`, 'x', { 'content-type': 'text/plain', 'x-twin-metadata': '{"a":1,"a":2}' }),
        400,
        'VALIDATION_FAILED',
        'X-Twin-Metadata',
      ],
      [
        post(`${products}?kind=mesh&name=a`, 'x', { 'content-type': 'text/plain', 'x-twin-metadata': '[1]' }),
        400,
        'VALIDATION_FAILED',
        'X-Twin-Metadata',
      ],
      [
        post(`${products}?kind=mesh&name=a`, 'x', { 'content-type': 'text/plain', 'x-twin-metadata': 'caf\u00e9' }),
        400,
        'VALIDATION_FAILED',
        'X-Twin-Metadata',
      ],
      [
        post(`${products}?kind=mesh&name=a&metadata=%7B%7D`, 'x', { 'content-type': 'text/plain', 'x-twin-metadata': '{}' }),
        400,
        'VALIDATION_FAILED',
        'metadata',
      ],
      [post(products, 'x', { 'content-type': 'text/plain' }), 400, 'VALIDATION_FAILED', 'kind'],
      // The JSON form: strict JSON, one content, everything in the body, the same limits.
      [
        post(products, '{"kind":"mesh","kind":"mesh","name":"a","media_type":"text/plain","content":"x"}', { 'content-type': FORM }),
        400,
        'MALFORMED_JSON',
      ],
      [
        post(products, '{"kind":"mesh","name":"a","media_type":"text/plain","content":"x","__proto__":{}}', { 'content-type': FORM }),
        400,
        'MALFORMED_JSON',
      ],
      [
        form({ kind: 'mesh', name: 'a', media_type: 'text/plain', content: 'x', content_base64: 'eA==' }),
        400,
        'VALIDATION_FAILED',
        'content',
      ],
      [form({ kind: 'mesh', name: 'a', media_type: 'text/plain' }), 400, 'VALIDATION_FAILED', 'content'],
      [
        form({ kind: 'mesh', name: 'a', media_type: 'text/plain', content_base64: 'not base64!' }),
        400,
        'VALIDATION_FAILED',
        'content_base64',
      ],
      [form({ kind: 'mesh', name: 'a', media_type: 'text/plain', content: 'x', extra: 1 }), 400, 'VALIDATION_FAILED', 'extra'],
      [
        form({ kind: 'mesh', name: 'a', media_type: 'text/plain', content: 'x', metadata: { notes: 'n'.repeat(16 * 1024) } }),
        400,
        'VALIDATION_FAILED',
        'metadata',
      ],
      [form({ kind: 'mesh', name: 'a', media_type: 'text/plain', content: 'x'.repeat(MAX_REVISION_BYTES + 1) }), 413, 'TWIN_TOO_LARGE'],
      [form({ kind: 'mesh', name: 'a', media_type: 'multipart/form-data; boundary=x', content: 'x' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [
        post(`${products}?kind=mesh`, JSON.stringify({ kind: 'mesh', name: 'a', media_type: 'text/plain', content: 'x' }), {
          'content-type': FORM,
        }),
        400,
        'VALIDATION_FAILED',
        'kind',
      ],
      [
        form({ kind: 'mesh', name: 'a', media_type: 'text/plain', content: 'x' }, `${products}/${id}/revisions`),
        400,
        'VALIDATION_FAILED',
        'kind',
      ],
    ];
    for (const [pending, status, code, field] of refusals) {
      const { status: got, body } = await json(await pending);
      expect({ got, code: body.code, fields: field ? body.errors?.map((error: any) => error.field) : undefined }).toEqual({
        got: status,
        code,
        fields: field ? expect.arrayContaining([field]) : undefined,
      });
    }
    expect(await counts()).toEqual(before);
  });

  it('refuses malformed percent-encoding in a query with 400 naming the parameter, on twin routes and others', async () => {
    const before = await counts();
    const malformed = '%E0%A4%A';
    const cases: [Promise<{ status: number; body: any }>, string][] = [
      // Stored as the name `%E0%A4%A` before.
      [json(await upload('main', `kind=mesh&name=${malformed}`, 'x')), 'name'],
      [json(await upload('main', `kind=mesh&name=a&metadata=${malformed}`, 'x')), 'metadata'],
      [json(await upload('main', `kind=mesh&name=a&metadata=%7B%22a%22%3A%22%ZZ%22%7D`, 'x')), 'metadata'],
      [get(`/v1/twin/branches/main/work-products?name=${malformed}`), 'name'],
      [get(`/v1/twin/branches?cursor=%FF`), 'cursor'],
      // The hot read routes and the execution list (answered 200 before).
      [get(`/v1/skills?q=${malformed}`), 'q'],
      [get(`/v1/search?q=${malformed}`), 'q'],
      [get(`/v1/executions?session_id=%ED%A0%80`), 'session_id'],
    ];
    for (const [pending, field] of cases) {
      const { status, body } = await pending;
      expect({ status, code: body.code, errors: body.errors }).toEqual({
        status: 400,
        code: 'VALIDATION_FAILED',
        errors: [{ field, message: expect.stringContaining('percent-encoding') }],
      });
    }
    // Well-formed escapes and + still decode as before.
    const fine = await json(await upload('main', 'kind=mesh&name=caf%C3%A9+au+lait', 'x'));
    expect(fine).toMatchObject({ status: 201, body: { name: 'café au lait' } });
    expect((await counts()).products).toBe(before.products + 1);
  });

  describe('MCP: twin:// resources (official SDK client)', () => {
    const clients: Client[] = [];
    afterAll(async () => {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    });

    /** An SDK client that also records the JSON-RPC error codes on the wire (the SDK reads -32002 and -32602 alike). */
    async function connect(pin?: string) {
      const wireErrors: number[] = [];
      const recording = async (input: string | URL | Request, init?: RequestInit) => {
        const response = await fetch(input, init);
        if (init?.method === 'POST') {
          void response
            .clone()
            .text()
            .then((text) => {
              for (const line of text.split('\n')) {
                const data = line.startsWith('data:') ? line.slice(5) : line.startsWith('{') ? line : null;
                const code = data === null ? undefined : (JSON.parse(data) as { error?: { code?: number } }).error?.code;
                if (code !== undefined) wireErrors.push(code);
              }
            });
        }
        return response;
      };
      const options = pin === '2026-07-28' ? { versionNegotiation: { mode: { pin } } } : pin ? { supportedProtocolVersions: [pin] } : {};
      const client = new Client({ name: 'twin-e2e', version: '1.0.0' }, options);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${registry.baseUrl}/mcp`), {
          authProvider: { token: async () => AGENT_TOKEN },
          fetch: recording,
        }),
      );
      clients.push(client);
      return { client, wireErrors };
    }

    const readFailure = async (client: Client, uri: string) => {
      try {
        await client.readResource({ uri });
      } catch (error) {
        return error as ProtocolError;
      }
      throw new Error(`${uri} was read`);
    };

    it('answers resources/read of an unknown twin:// URI with -32002 on 2025-era sessions, -32602 on 2026-07-28, as docs/mcp.md says', async () => {
      const created = await json(await upload('main', 'kind=report&name=resource', 'readable'));
      const missing = [
        'twin://main/00000000-0000-4000-8000-000000000000',
        'twin://nowhere/00000000-0000-4000-8000-000000000000',
        'twin://main/not-a-uuid',
      ];
      for (const [pin, code] of [
        [undefined, -32002],
        ['2025-06-18', -32002],
        ['2026-07-28', -32602],
      ] as const) {
        const { client, wireErrors } = await connect(pin);
        if (pin) expect(client.getNegotiatedProtocolVersion()).toBe(pin);
        const read = await client.readResource({ uri: `twin://main/${created.body.id}` });
        expect(read.contents).toEqual([expect.objectContaining({ text: 'readable', mimeType: 'text/plain' })]);
        for (const uri of missing) {
          const error = await readFailure(client, uri);
          expect({ pin, uri, notFound: error instanceof ResourceNotFoundError, errorUri: (error as ResourceNotFoundError).uri }).toEqual({
            pin,
            uri,
            notFound: true,
            errorUri: uri,
          });
        }
        await eventually(async () => wireErrors.length >= missing.length, 5000).catch(() => undefined);
        expect({ pin, wireErrors }).toEqual({ pin, wireErrors: missing.map(() => code) });
      }
    });
  });
});
