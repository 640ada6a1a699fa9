import pg from 'pg';
import { TwinFailure, TwinStore } from '#twin/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const alice = { identity: 'alice' };
const text = (value: string) => Buffer.from(value, 'utf8');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function failure(promise: Promise<unknown>): Promise<TwinFailure> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TwinFailure) return error;
    throw error;
  }
  throw new Error('expected a TwinFailure');
}

describe('digital twin store (Postgres): branches, revisions, constraints, provenance', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let twin: TwinStore;

  beforeAll(async () => {
    db = await createTestDatabase('twin');
    pool = new pg.Pool({ connectionString: db.url, max: 12 });
    twin = new TwinStore(pool, { maxRevisionBytes: 64 * 1024, maxBranchBytes: 256 * 1024 });
  });

  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  const put = (branch: string, content: string, extra: Partial<Parameters<TwinStore['put']>[0]> = {}) =>
    twin.put({ branch, kind: 'mesh', name: 'bracket mesh', bytes: text(content), mediaType: 'text/plain', ...extra }, alice);

  it('creates a work product on main with revision 1 and reads it back byte for byte', async () => {
    const created = await put('main', 'mesh v1', { metadata: { nodes: 4 } });
    expect(created.current).toMatchObject({
      revision: 1,
      branch: 'main',
      mediaType: 'text/plain',
      size: 7,
      metadata: { nodes: 4 },
      createdBy: 'alice',
    });
    expect(created.current.contentHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const read = await twin.readContent(created.id, 'main');
    expect(read.bytes.toString()).toBe('mesh v1');
  });

  it('never loses a revision when many writers add revisions to one work product at once', async () => {
    const created = await put('main', 'start');
    const writers = 20;
    const written = await Promise.all(
      Array.from({ length: writers }, (_, index) =>
        twin.put({ branch: 'main', id: created.id, kind: 'mesh', bytes: text(`v${index}`), mediaType: 'text/plain' }, alice),
      ),
    );
    const numbers = written.map((view) => view.current.revision).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: writers }, (_, index) => index + 2));
    const revisions = await twin.revisions(created.id, 'main');
    expect(revisions).toHaveLength(writers + 1);
    // The current revision is the highest number, and its time is the latest.
    const current = await twin.require(created.id, 'main');
    expect(current.current.revision).toBe(writers + 1);
    expect(Math.max(...revisions.map((revision) => revision.createdAt.getTime()))).toBe(current.current.createdAt.getTime());
  });

  it('a branch made at a point in time sees main as it was then, and its own writes stay its own', async () => {
    const created = await put('main', 'rev A');
    await sleep(20);
    const between = new Date();
    await sleep(20);
    await twin.put({ branch: 'main', id: created.id, kind: 'mesh', bytes: text('rev B'), mediaType: 'text/plain' }, alice);

    await twin.createBranch({ name: 'at-a', from: 'main', at: between }, alice);
    expect((await twin.readContent(created.id, 'at-a')).bytes.toString()).toBe('rev A');
    await twin.createBranch({ name: 'now-b' }, alice);
    expect((await twin.readContent(created.id, 'now-b')).bytes.toString()).toBe('rev B');

    await twin.put({ branch: 'at-a', id: created.id, kind: 'mesh', bytes: text('rev C on at-a'), mediaType: 'text/plain' }, alice);
    expect((await twin.readContent(created.id, 'at-a')).bytes.toString()).toBe('rev C on at-a');
    expect((await twin.readContent(created.id, 'main')).bytes.toString()).toBe('rev B');
    expect((await twin.readContent(created.id, 'now-b')).bytes.toString()).toBe('rev B');

    // A new work product on a branch does not exist on main, nor on a sibling.
    const onBranch = await put('at-a', 'only here');
    expect(await twin.get(onBranch.id, 'main')).toBeNull();
    expect(await twin.get(onBranch.id, 'now-b')).toBeNull();
    expect((await failure(twin.readContent(onBranch.id, 'main'))).reason).toBe('WORK_PRODUCT_NOT_FOUND');

    // A grandchild made from at-a now sees at-a's revision and, through it, main only up to `between`.
    await twin.createBranch({ name: 'at-a-child', from: 'at-a' }, alice);
    expect((await twin.readContent(created.id, 'at-a-child')).bytes.toString()).toBe('rev C on at-a');
    expect((await twin.revisions(created.id, 'at-a-child')).map((revision) => revision.branch)).toEqual(['at-a', 'main']);
  });

  it('refuses branch points outside the parent and unknown or duplicate branches', async () => {
    expect((await failure(twin.createBranch({ name: 'future', at: new Date(Date.now() + 3_600_000) }, alice))).reason).toBe('INVALID');
    expect((await failure(twin.createBranch({ name: 'before-main', at: new Date('2000-01-01T00:00:00Z') }, alice))).reason).toBe('INVALID');
    expect((await failure(twin.createBranch({ name: 'orphan', from: 'no-such-branch' }, alice))).reason).toBe('BRANCH_NOT_FOUND');
    await twin.createBranch({ name: 'twice' }, alice);
    expect((await failure(twin.createBranch({ name: 'twice' }, alice))).reason).toBe('BRANCH_EXISTS');
    expect((await failure(twin.createBranch({ name: '../etc' }, alice))).reason).toBe('INVALID');
    expect((await failure(put('no-such-branch', 'x'))).reason).toBe('BRANCH_NOT_FOUND');
    const names = (await twin.listBranches({ limit: 100 })).map((branch) => branch.name);
    expect(names).not.toContain('future');
    expect(names).not.toContain('orphan');
  });

  it('writes the same content once: a retried write returns the revision it made', async () => {
    const created = await put('main', 'same', { metadata: { a: 1, b: 2 } });
    const again = await twin.put(
      { branch: 'main', id: created.id, kind: 'mesh', bytes: text('same'), mediaType: 'text/plain', metadata: { b: 2, a: 1 } },
      alice,
    );
    expect(again.current.revision).toBe(created.current.revision);
    const changed = await twin.put(
      { branch: 'main', id: created.id, kind: 'mesh', bytes: text('same'), mediaType: 'text/plain', metadata: { a: 2 } },
      alice,
    );
    expect(changed.current.revision).toBe(created.current.revision + 1);
  });

  it('refuses bad writes and leaves nothing behind', async () => {
    const before = await pool.query(
      `SELECT (SELECT count(*) FROM work_products) AS products, (SELECT count(*) FROM work_product_revisions) AS revisions`,
    );
    const created = await put('main', 'a mesh');
    const after = await pool.query(
      `SELECT (SELECT count(*) FROM work_products) AS products, (SELECT count(*) FROM work_product_revisions) AS revisions`,
    );
    const cases: [Promise<unknown>, string][] = [
      [put('main', 'x'.repeat(64 * 1024 + 1)), 'TOO_LARGE'],
      [put('main', 'x', { mediaType: 'multipart/form-data; boundary=x' }), 'MEDIA_TYPE_UNSUPPORTED'],
      [put('main', 'x', { mediaType: 'not a type' }), 'MEDIA_TYPE_UNSUPPORTED'],
      [put('main', 'x', { kind: 'Mesh!' }), 'INVALID'],
      [put('main', 'x', { name: 'line\nbreak' }), 'INVALID'],
      [put('main', 'x', { name: 'nul\u0000' }), 'INVALID'],
      [put('main', 'x', { name: '' }), 'INVALID'],
      [put('main', 'x', { metadata: [1, 2] }), 'INVALID'],
      [put('main', 'x', { id: created.id, kind: 'report' }), 'KIND_MISMATCH'],
      [put('main', 'x', { id: created.id, name: 'another name' }), 'INVALID'],
      [put('main', 'x', { id: '00000000-0000-4000-8000-000000000000' }), 'WORK_PRODUCT_NOT_FOUND'],
      [put('main', 'x', { id: 'not-a-uuid' }), 'INVALID'],
    ];
    for (const [promise, reason] of cases) expect((await failure(promise)).reason).toBe(reason);
    const end = await pool.query(
      `SELECT (SELECT count(*) FROM work_products) AS products, (SELECT count(*) FROM work_product_revisions) AS revisions`,
    );
    expect(end.rows[0]).toEqual(after.rows[0]);
    expect(Number(after.rows[0].products)).toBe(Number(before.rows[0].products) + 1);
  });

  it('holds a branch to its quota', async () => {
    await twin.createBranch({ name: 'quota' }, alice);
    const chunk = 'q'.repeat(60 * 1024);
    for (let index = 0; index < 4; index++) await put('quota', `${chunk}${index}`);
    const refused = await failure(put('quota', `${chunk}-over`));
    expect(refused.reason).toBe('TOO_LARGE');
    expect(refused.details).toMatchObject({ limit: 'TWIN_MAX_BRANCH_BYTES', branch: 'quota' });
  });

  it('archives per branch: hidden there, still on other branches, restored by a new revision', async () => {
    const created = await put('main', 'to archive');
    await twin.createBranch({ name: 'keeps-it' }, alice);
    await twin.archive(created.id, 'main', alice);
    expect(await twin.get(created.id, 'main')).toBeNull();
    expect((await twin.list('main', { limit: 100 })).map((item) => item.id)).not.toContain(created.id);
    expect(await twin.get(created.id, 'keeps-it')).not.toBeNull();
    expect((await failure(twin.archive(created.id, 'main', alice))).reason).toBe('WORK_PRODUCT_NOT_FOUND');
    // Archived: readable by number (not as current, nor the marker's number), listed only when asked for.
    expect((await twin.readContent(created.id, 'main', 1)).bytes.toString()).toBe('to archive');
    expect((await failure(twin.readContent(created.id, 'main'))).details).toMatchObject({ archived: true, archived_revision: 2 });
    expect((await failure(twin.readContent(created.id, 'main', 2))).reason).toBe('REVISION_NOT_FOUND');
    expect((await twin.revisions(created.id, 'main')).map((revision) => [revision.revision, revision.archived])).toEqual([
      [2, true],
      [1, false],
    ]);
    const archivedHere = await twin.list('main', { limit: 100, archived: true });
    expect(archivedHere.map((item) => [item.id, item.current.archived])).toEqual([[created.id, true]]);
    expect((await twin.list('keeps-it', { limit: 100, archived: true })).map((item) => item.id)).not.toContain(created.id);
    // A revision restores it: no kind needed (the work product's own), the same bytes as before still written.
    const restored = await twin.put({ branch: 'main', id: created.id, bytes: text('to archive'), mediaType: 'text/plain' }, alice);
    expect(restored).toMatchObject({ written: true, kind: 'mesh', current: { revision: 3, archived: false } });
    expect(await twin.get(created.id, 'main')).not.toBeNull();
    expect((await twin.list('main', { limit: 100, archived: true })).map((item) => item.id)).not.toContain(created.id);
    const again = await twin.put({ branch: 'main', id: created.id, bytes: text('to archive'), mediaType: 'text/plain' }, alice);
    expect(again).toMatchObject({ written: false, current: { revision: 3 } });
    // Nothing is deleted: the first revision is still readable by number.
    expect((await twin.readContent(created.id, 'main', 1)).bytes.toString()).toBe('to archive');
  });

  it('validates constraints per kind, revises them per branch, and inherits them on new branches', async () => {
    const created = await put('main', 'constrained');
    expect((await twin.constraints(created.id, 'main')).constraints).toBeNull();
    const bad = await failure(
      twin.setConstraints(
        created.id,
        'main',
        [{ kind: 'max_von_mises_stress', max_von_mises_mpa: -5, material: 's235' }, { kind: 'no_such_kind' }],
        alice,
      ),
    );
    expect(bad.reason).toBe('INVALID');
    expect(bad.errors.map((error) => error.field)).toEqual(['constraints[0].max_von_mises_mpa', 'constraints[1].kind']);
    await twin.setConstraints(
      created.id,
      'main',
      [{ kind: 'max_von_mises_stress', max_von_mises_mpa: 235, safety_factor: 1.5, material: 's235' }],
      alice,
    );
    await twin.createBranch({ name: 'stricter' }, alice);
    await twin.setConstraints(
      created.id,
      'stricter',
      [{ kind: 'max_von_mises_stress', max_von_mises_mpa: 235, safety_factor: 2, material: 's235' }],
      alice,
    );
    expect((await twin.constraints(created.id, 'main')).constraints?.constraints[0]).toMatchObject({ safety_factor: 1.5 });
    expect((await twin.constraints(created.id, 'stricter')).constraints?.constraints[0]).toMatchObject({ safety_factor: 2 });
  });

  it('records provenance: who wrote a revision and which executions read it', async () => {
    const executionId = '11111111-2222-4333-8444-555555555555';
    const written = await twin.put(
      { branch: 'main', kind: 'simulation_result', name: 'result', bytes: text('{}'), mediaType: 'application/json' },
      { identity: `execution:${executionId}`, executionId },
    );
    const reader = '66666666-7777-4888-8999-000000000000';
    await twin.readContent(written.id, 'main', undefined, { executionId: reader });
    await twin.readContent(written.id, 'main', undefined, { executionId: reader });
    const provenance = await twin.provenance(written.id, 1);
    expect(provenance.revision).toMatchObject({ executionId, createdBy: `execution:${executionId}` });
    expect(provenance.readBy.map((read) => read.executionId)).toEqual([reader]);
    expect((await twin.accessOf(executionId)).wrote).toEqual([
      expect.objectContaining({ workProductId: written.id, revision: 1, branch: 'main' }),
    ]);
    expect((await twin.accessOf(reader)).read).toEqual([expect.objectContaining({ workProductId: written.id, revision: 1 })]);
  });

  it('records the constraints revision an execution read, in its access and in the provenance of what it wrote', async () => {
    const mesh = await put('main', 'judged mesh');
    await twin.setConstraints(mesh.id, 'main', [{ kind: 'max_elements', max_elements: 10 }], alice);
    await twin.setConstraints(mesh.id, 'main', [{ kind: 'max_elements', max_elements: 20 }], alice);
    const executionId = '22222222-3333-4444-8555-666666666666';
    const reader = { executionId };
    await twin.readContent(mesh.id, 'main', undefined, reader);
    expect((await twin.constraints(mesh.id, 'main', reader)).constraints?.revision).toBe(2);
    await twin.constraints(mesh.id, 'main', reader);
    const result = await twin.put(
      { branch: 'main', kind: 'simulation_result', name: 'judged', bytes: text('{"passed":true}'), mediaType: 'application/json' },
      { identity: `execution:${executionId}`, executionId },
    );
    const judgedAgainst = {
      workProductId: mesh.id,
      revision: 2,
      branch: 'main',
      constraints: [{ kind: 'max_elements', max_elements: 20 }],
    };
    expect((await twin.accessOf(executionId)).constraintsRead).toEqual([expect.objectContaining(judgedAgainst)]);
    const provenance = await twin.provenance(result.id, 1);
    expect(provenance.writerRead).toEqual([expect.objectContaining({ workProductId: mesh.id, revision: 1 })]);
    expect(provenance.writerConstraintsRead).toEqual([expect.objectContaining(judgedAgainst)]);
    // Written by a token: nothing read for it; a read without constraints records none.
    expect((await twin.provenance(mesh.id, 1)).writerConstraintsRead).toEqual([]);
    const plain = await put('main', 'unconstrained');
    await twin.constraints(plain.id, 'main', { executionId: '33333333-4444-4555-8666-777777777777' });
    expect((await twin.accessOf('33333333-4444-4555-8666-777777777777')).constraintsRead).toEqual([]);
  });

  it('lists work products current on a branch, filtered by kind and name, paged by id', async () => {
    await twin.createBranch({ name: 'listing', from: null, purpose: 'promotion' }, alice);
    const made = [];
    for (let index = 0; index < 5; index++) made.push(await put('listing', `m${index}`, { name: `mesh ${index}` }));
    await twin.put({ branch: 'listing', kind: 'report', name: 'report', bytes: text('r'), mediaType: 'text/markdown' }, alice);
    const meshes = await twin.list('listing', { kind: 'mesh', limit: 3 });
    expect(meshes).toHaveLength(3);
    const rest = await twin.list('listing', { kind: 'mesh', limit: 3, after: meshes.at(-1)?.id });
    expect([...meshes, ...rest].map((item) => item.id).sort()).toEqual(made.map((item) => item.id).sort());
    expect((await twin.list('listing', { name: 'report', limit: 10 })).map((item) => item.kind)).toEqual(['report']);
    // A promotion branch starts empty and is not listed among the branches callers work on.
    expect((await twin.listBranches({ limit: 100 })).map((branch) => branch.name)).not.toContain('listing');
  });
});
