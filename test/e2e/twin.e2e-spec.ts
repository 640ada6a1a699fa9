import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, EXECUTION_SKILLS_ROOT, obliterateQueue, readSse } from '../support/executions.js';
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
    expect(access.body).toMatchObject({
      execution_id: run.body.id,
      branch: 'experiment',
      read: [{ work_product_id: source.body.id, revision: 1 }],
      wrote: [{ work_product_id: resultId, revision: 1, branch: 'experiment', uri: `twin://experiment/${resultId}` }],
    });
    const provenance = await get(`/v1/twin/work-products/${resultId}/revisions/1/provenance`);
    expect(provenance.body.written_by).toEqual({ identity: `execution:${run.body.id}`, execution_id: run.body.id });
    const sourceProvenance = await get(`/v1/twin/work-products/${source.body.id}/revisions/1/provenance`);
    expect(sourceProvenance.body.read_by.map((read: any) => read.execution_id)).toContain(run.body.id);

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
});
