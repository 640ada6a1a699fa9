import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { TwinError } from './errors.js';
import { isDisabledTool } from './context.js';
import { createFakeTwin, createTestContext } from './testing.js';

const MESH = { kind: 'mesh', name: 'bracket mesh', mediaType: 'text/x-calculix-inp' } as const;
const ID = '3f1c2a9e-6b7d-4c1e-9a55-2d8e4b7f0c11';

describe('createFakeTwin', () => {
  it('creates a work product at revision 1 and numbers later revisions 2, 3, …, written by the execution', async () => {
    const twin = createFakeTwin({ executionId: 'exec-1' });
    const first = await twin.putWorkProduct({ ...MESH, content: '*NODE\n' });
    expect(first).toMatchObject({ revision: 1, branch: 'main' });
    expect(first.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first.contentHash).toBe(`sha256:${createHash('sha256').update('*NODE\n').digest('hex')}`);
    const second = await twin.putWorkProduct({ ...MESH, id: first.id, content: '*NODE\n1, 0, 0, 0\n', metadata: { nodes: 1 } });
    expect(second.revision).toBe(2);

    const view = await twin.getWorkProduct(first.id);
    expect(view).toMatchObject({ id: first.id, kind: 'mesh', name: 'bracket mesh', branch: 'main' });
    expect(view?.current).toMatchObject({
      revision: 2,
      mediaType: 'text/x-calculix-inp',
      size: 17,
      metadata: { nodes: 1 },
      createdBy: 'execution:exec-1',
      executionId: 'exec-1',
    });
    expect((await twin.readContent(first.id)).text()).toBe('*NODE\n1, 0, 0, 0\n');
    expect((await twin.readContent(first.id, { revision: 1 })).text()).toBe('*NODE\n');
    expect(twin.writes).toEqual([
      { id: first.id, revision: 1, branch: 'main' },
      { id: first.id, revision: 2, branch: 'main' },
    ]);
    expect(twin.reads).toEqual([
      { id: first.id, revision: 2, branch: 'main' },
      { id: first.id, revision: 1, branch: 'main' },
    ]);
  });

  it('makes no new revision for the same content, media type and metadata (retries are safe)', async () => {
    const twin = createFakeTwin();
    const first = await twin.putWorkProduct({ ...MESH, content: 'x', metadata: { a: 1, b: 2 } });
    const again = await twin.putWorkProduct({ ...MESH, id: first.id, content: 'x', metadata: { b: 2, a: 1 } });
    expect(again).toEqual(first);
    const newMediaType = await twin.putWorkProduct({
      ...MESH,
      id: first.id,
      content: 'x',
      mediaType: 'text/plain',
      metadata: { a: 1, b: 2 },
    });
    expect(newMediaType.revision).toBe(2);
    const newMetadata = await twin.putWorkProduct({ ...MESH, id: first.id, content: 'x', mediaType: 'text/plain', metadata: { a: 1 } });
    expect(newMetadata.revision).toBe(3);
  });

  it('forks the branches it is given after seeding main, and seeds work products of other branches there', async () => {
    const twin = createFakeTwin({
      branches: ['feature', { name: 'sub', from: 'feature' }],
      workProducts: [
        { ...MESH, id: ID, content: 'v1' },
        { ...MESH, content: 'only on feature', branch: 'feature' },
      ],
    });
    expect((await twin.readContent(ID, { branch: 'sub' })).text()).toBe('v1');
    expect((await twin.listWorkProducts({ branch: 'feature' })).map((product) => product.current.size)).toEqual([2, 15]);
    expect(await twin.listWorkProducts()).toHaveLength(1);
    expect(await twin.listWorkProducts({ branch: 'sub' })).toHaveLength(1);
  });

  it('keeps branches apart: a write on one branch never changes another, and revisions are numbered across branches', async () => {
    const twin = createFakeTwin();
    twin.createBranch('feature');
    twin.seed({ ...MESH, id: ID, content: 'v1' });
    // Seeded after the fork: main's revision 1 is not on `feature`.
    expect(await twin.getWorkProduct(ID, { branch: 'feature' })).toBeNull();

    twin.createBranch('study');
    const onStudy = await twin.putWorkProduct({ ...MESH, id: ID, content: 'v2', branch: 'study' });
    expect(onStudy).toMatchObject({ id: ID, revision: 2, branch: 'study' });
    const onMain = await twin.putWorkProduct({ ...MESH, id: ID, content: 'v3' });
    expect(onMain.revision).toBe(3);

    expect((await twin.readContent(ID)).text()).toBe('v3');
    expect((await twin.readContent(ID, { branch: 'study' })).text()).toBe('v2');
    // A revision of another branch is not visible here.
    await expect(twin.readContent(ID, { branch: 'study', revision: 3 })).rejects.toMatchObject({
      reason: 'NOT_FOUND',
      message: `Revision 3 of work product ${ID} not found on branch study`,
    });
    expect(await twin.listWorkProducts({ branch: 'feature' })).toEqual([]);
  });

  it('forks at a point in time: the child sees the parent up to the fork, then only its own writes', async () => {
    const twin = createFakeTwin({
      workProducts: [{ ...MESH, id: ID, content: 'before', constraints: [{ kind: 'max_elements', max_elements: 10 }] }],
    });
    twin.createBranch('fork');
    await twin.putWorkProduct({ ...MESH, id: ID, content: 'after' });
    twin.setConstraints(ID, [{ kind: 'max_elements', max_elements: 99 }]);
    twin.createBranch('grandchild', 'fork');

    expect((await twin.readContent(ID, { branch: 'fork' })).text()).toBe('before');
    expect(await twin.getConstraints(ID, { branch: 'fork' })).toEqual([{ kind: 'max_elements', max_elements: 10 }]);
    expect(await twin.getConstraints(ID)).toEqual([{ kind: 'max_elements', max_elements: 99 }]);
    expect((await twin.getWorkProduct(ID, { branch: 'grandchild' }))?.current.revision).toBe(1);
  });

  it('throws NOT_FOUND naming the work product and the branch, and BRANCH_NOT_FOUND for an unknown branch', async () => {
    const twin = createFakeTwin();
    expect(await twin.getWorkProduct(ID)).toBeNull();
    const missing = await twin.readContent(ID).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(TwinError);
    expect(missing).toMatchObject({
      reason: 'NOT_FOUND',
      code: 'PRECONDITION_FAILED',
      message: `Work product ${ID} not found on branch main`,
      details: { reason: 'NOT_FOUND', work_product_id: ID, branch: 'main' },
    });
    await expect(twin.getConstraints(ID)).rejects.toMatchObject({ reason: 'NOT_FOUND' });
    await expect(twin.putWorkProduct({ ...MESH, id: ID, content: 'x' })).rejects.toMatchObject({ reason: 'NOT_FOUND' });
    await expect(twin.getWorkProduct(ID, { branch: 'nope' })).rejects.toMatchObject({
      reason: 'BRANCH_NOT_FOUND',
      code: 'PRECONDITION_FAILED',
      message: 'Branch nope not found',
    });
  });

  it('refuses a revision of another kind and malformed writes as INVALID', async () => {
    const twin = createFakeTwin({ workProducts: [{ ...MESH, id: ID, content: 'x' }] });
    await expect(twin.putWorkProduct({ ...MESH, id: ID, kind: 'cad_model', content: 'y' })).rejects.toMatchObject({
      reason: 'INVALID',
      message: `Work product ${ID} is a mesh, not a cad_model`,
    });
    await expect(twin.putWorkProduct({ kind: 'Mesh', name: ' ', mediaType: 'inp', content: 'x' })).rejects.toMatchObject({
      reason: 'INVALID',
      details: { problems: ["kind 'Mesh' is not lower_snake_case", 'name is empty', "media type 'inp' is not <type>/<subtype>"] },
    });
    expect(() => twin.seed({ ...MESH, id: 'mesh-1', content: 'x' })).toThrow('Work product id mesh-1 is not a UUID');
    expect(() => twin.setConstraints(ID, [{ kind: '' }])).toThrow(`constraints[0] of work product ${ID} has no kind`);
  });

  it('hides an archived work product on its branch, not on branches forked before', async () => {
    const twin = createFakeTwin({ workProducts: [{ ...MESH, id: ID, content: 'x' }] });
    twin.createBranch('kept');
    twin.archive(ID);
    expect(await twin.getWorkProduct(ID)).toBeNull();
    expect(await twin.listWorkProducts()).toEqual([]);
    await expect(twin.readContent(ID)).rejects.toMatchObject({ reason: 'NOT_FOUND' });
    expect(await twin.getWorkProduct(ID, { branch: 'kept' })).not.toBeNull();
    // As on the platform: its revisions stay readable by number, and a new revision restores it.
    expect((await twin.readContent(ID, { revision: 1 })).text()).toBe('x');
    await twin.putWorkProduct({ ...MESH, id: ID, content: 'x' });
    expect(await twin.getWorkProduct(ID)).not.toBeNull();
    expect((await twin.readContent(ID)).text()).toBe('x');
  });

  it('lists the work products current on a branch, optionally of one kind', async () => {
    const twin = createFakeTwin({
      workProducts: [
        { ...MESH, content: 'mesh' },
        { kind: 'cad_model', name: 'bracket', mediaType: 'model/step', content: new Uint8Array([1, 2, 3]) },
      ],
    });
    expect((await twin.listWorkProducts()).map((product) => product.kind)).toEqual(['mesh', 'cad_model']);
    const [model] = await twin.listWorkProducts({ kind: 'cad_model' });
    expect([...(await twin.readContent(model.id)).bytes]).toEqual([1, 2, 3]);
  });
});

describe('createTestContext with a twin', () => {
  it('gives an empty fake twin by default, on the context branch', async () => {
    const context = createTestContext({ branch: 'study' });
    const written = await context.twin.putWorkProduct({ ...MESH, content: 'x' });
    expect(written.branch).toBe('study');
    expect(context.twin.writes).toEqual([{ id: written.id, revision: 1, branch: 'study' }]);
  });

  it('sends calls that name no branch to the context branch, sharing one twin between contexts', async () => {
    const twin = createFakeTwin({ branches: ['feature'], workProducts: [{ ...MESH, id: ID, content: 'v1' }] });
    const onFeature = createTestContext({ twin, branch: 'feature' });
    const onMain = createTestContext({ twin });
    await onMain.twin.putWorkProduct({ ...MESH, id: ID, content: 'v2' });
    expect((await onFeature.twin.readContent(ID)).text()).toBe('v1');
    expect((await onMain.twin.readContent(ID)).text()).toBe('v2');
    expect(twin.writes).toEqual([{ id: ID, revision: 2, branch: 'main' }]);
    expect(onFeature.twin.writes).toBe(twin.writes);
  });
});

describe('disabled tools', () => {
  it('answers a disabled tool with { disabled, reason }, records the call and reports it unavailable', async () => {
    const context = createTestContext({ tools: { 'spice.simulate': { ok: 1 } }, disabled: ['spice.simulate'] });
    const result = await context.mcp.invoke('spice.simulate', { netlist: 'x' });
    expect(result).toEqual({ disabled: true, reason: "tool 'spice.simulate' is disabled by TOOLS_DISABLED" });
    expect(isDisabledTool(result)).toBe(true);
    expect(context.toolCalls).toEqual([{ toolId: 'spice.simulate', params: { netlist: 'x' } }]);
    expect(await context.mcp.isAvailable('spice.simulate')).toBe(false);
  });

  it('takes only the exact structured answer for a disabled tool, not a tool result that happens to say disabled', () => {
    expect(isDisabledTool({ disabled: true, reason: 'off' })).toBe(true);
    expect(isDisabledTool({ disabled: true, reason: 'off', points: 3 })).toBe(false);
    expect(isDisabledTool({ disabled: 'yes', reason: 'off' })).toBe(false);
    expect(isDisabledTool({ disabled: true })).toBe(false);
  });
});
