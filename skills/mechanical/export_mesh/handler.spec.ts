import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { McpToolError, SkillExecutionError, findUndescribedProperties, toJsonSchema } from '@skill-registry/sdk';
import type { FakeTool } from '@skill-registry/sdk';
import { createFakeTwin, createTestContext, type FakeTwin } from '@skill-registry/sdk/testing';
import { ExportMeshHandler, MESH_TOOL } from './handler.js';
import { summarizeMesh, tetrahedronVolume } from './mesh.js';
import { ExportMeshInput, ExportMeshOutput } from './schema.js';

interface Fixture {
  id: string;
  kind: string;
  name: string;
  media_type: string;
  content_file: string;
  metadata?: Record<string, unknown>;
}

const definition = JSON.parse(readFileSync(new URL('./definition.json', import.meta.url), 'utf8')) as {
  version: string;
  read_only: boolean;
  tools_required: unknown[];
  examples: { description: string; input: Record<string, unknown>; output?: unknown; twin?: { work_products: Fixture[] } }[];
};

const GEO = 'SetFactory("OpenCASCADE");\nBox(1) = {0, 0, 0, 1, 1, 1};\nPhysical Volume("body") = {1};\n';

/** Unit cube corners in CalculiX order: bottom face 1-2-3-4 counter-clockwise seen from the top, then the top face. */
const CUBE_NODES = ['1, 0, 0, 0', '2, 1, 0, 0', '3, 1, 1, 0', '4, 0, 1, 0', '5, 0, 0, 1', '6, 1, 0, 1', '7, 1, 1, 1', '8, 0, 1, 1'];

/** The unit cube as 5 tetrahedra (a corner cut off at 1, 3, 6, 8 and the middle one): volumes 1/6 x 4 + 1/3. */
const CUBE_TETS = ['1, 1, 2, 4, 5', '2, 2, 3, 4, 7', '3, 2, 6, 7, 5', '4, 4, 5, 7, 8', '5, 2, 4, 5, 7'];

function inp(elements: string[], type = 'C3D4', nodes = CUBE_NODES): string {
  return [
    '*HEADING',
    'test mesh',
    '*NODE, NSET=NALL',
    ...nodes,
    `*ELEMENT, TYPE=${type}, ELSET=body`,
    ...elements,
    '*ELSET, ELSET=EALL',
    '1, 2,',
    '',
  ].join('\n');
}

/** A gmsh.export_mesh result for `text`, with counts read the way gmsh reports them. */
function toolResult(text: string, extra: Record<string, unknown> = {}) {
  const summary = summarizeMesh(text);
  return {
    inp: text,
    node_count: summary.nodeCount,
    element_count: summary.elementCount,
    element_types: { C3D4: summary.elementCount },
    element_sets: [
      { name: 'body', element_count: summary.elementCount },
      { name: 'EALL', element_count: summary.elementCount },
    ],
    node_sets: [{ name: 'NALL', node_count: summary.nodeCount }],
    surfaces: [{ name: 'top', face_count: 2 }],
    dropped_elements: 12,
    gmsh_version: '4.8.4',
    warnings: [],
    ...extra,
  };
}

async function run(raw: Record<string, unknown>, tool: FakeTool, twin: FakeTwin = createFakeTwin(), branch = 'main') {
  const context = createTestContext({ tools: { [MESH_TOOL]: tool }, twin, branch });
  const output = await new ExportMeshHandler(context).execute(ExportMeshInput.parse(raw));
  return { output: ExportMeshOutput.parse(output), context };
}

describe('export_mesh: mesh volumes', () => {
  it('computes signed tetrahedron volumes (positive in CalculiX node order)', () => {
    expect(tetrahedronVolume([0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1])).toBeCloseTo(1 / 6, 15);
    expect(tetrahedronVolume([0, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1])).toBeCloseTo(-1 / 6, 15);
  });

  it('sums a unit cube of five tetrahedra to 1 and finds the smallest element', () => {
    const summary = summarizeMesh(inp(CUBE_TETS));
    expect(summary.nodeCount).toBe(8);
    expect(summary.elementCount).toBe(5);
    expect(summary.volume).toBeCloseTo(1, 14);
    expect(summary.smallestElementVolume).toBeCloseTo(1 / 6, 14);
    expect(summary.invertedElements).toEqual([]);
  });

  it('flags an inverted tetrahedron (two nodes swapped)', () => {
    const summary = summarizeMesh(inp(['1, 1, 4, 2, 5', ...CUBE_TETS.slice(1)]));
    expect(summary.invertedElements).toEqual([1]);
    expect(summary.volume).toBeCloseTo(1 - 2 / 6, 14);
  });

  it('measures hexahedra (8 and 20 nodes, continuation lines) and wedges by their corners', () => {
    expect(summarizeMesh(inp(['1, 1, 2, 3, 4, 5, 6, 7, 8'], 'C3D8')).volume).toBeCloseTo(1, 14);
    // C3D20: 20 nodes over two lines (16 per line, as Abaqus writes them); mid-side nodes do not change the volume.
    const mids = Array.from({ length: 12 }, (_, i) => `${9 + i}, 0.5, 0.5, 0.5`);
    const c3d20 = summarizeMesh(
      inp(['1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,', '16, 17, 18, 19, 20'], 'C3D20', [...CUBE_NODES, ...mids]),
    );
    expect(c3d20.elementCount).toBe(1);
    expect(c3d20.volume).toBeCloseTo(1, 14);
    // Wedge: triangle (0,0)-(1,0)-(0,1) extruded by 1: volume 1/2.
    const wedgeNodes = ['1, 0, 0, 0', '2, 1, 0, 0', '3, 0, 1, 0', '4, 0, 0, 1', '5, 1, 0, 1', '6, 0, 1, 1'];
    expect(summarizeMesh(inp(['1, 1, 2, 3, 4, 5, 6'], 'C3D6', wedgeNodes)).volume).toBeCloseTo(0.5, 14);
    // A hexahedron turned inside out (top and bottom faces swapped) is flagged.
    expect(summarizeMesh(inp(['1, 5, 6, 7, 8, 1, 2, 3, 4'], 'C3D8')).invertedElements).toEqual([1]);
  });

  it('gives no volume for element types without a rule or elements with unknown nodes', () => {
    const pyramid = summarizeMesh(inp(['1, 1, 2, 3, 4, 5'], 'C3D5'));
    expect(pyramid.elementCount).toBe(1);
    expect(pyramid.volume).toBeNull();
    expect(pyramid.unknownTypes).toEqual(['C3D5']);
    expect(summarizeMesh(inp(['1, 1, 2, 3, 99'])).volume).toBeNull();
    expect(summarizeMesh('*HEADING\nnothing\n').volume).toBeNull();
  });
});

describe('export_mesh', () => {
  it('returns the .inp, counts and sets, and passes the sanity checks of a good mesh', async () => {
    const { output } = await run({ geo: GEO, expected_volume: 1, max_elements: 10 }, toolResult(inp(CUBE_TETS)));
    expect(output.passed).toBe(true);
    expect(output.checks.map((c) => [c.name, c.passed])).toEqual([
      ['counts_consistent', true],
      ['no_inverted_elements', true],
      ['within_max_elements', true],
      ['volume_matches', true],
    ]);
    expect(output).toMatchObject({
      node_count: 8,
      element_count: 5,
      element_types: [{ type: 'C3D4', count: 5 }],
      mesh_volume: 1,
      smallest_element_volume: 0.1666666667,
      dropped_elements: 12,
    });
    expect(output.inp).toBe(inp(CUBE_TETS));
    expect(output.checks[3].message).toBe('mesh volume 1 vs expected 1 (+0 %, allowed ±1 %)');
  });

  it('flags too many elements, a volume off by more than the tolerance, and inverted elements', async () => {
    const inverted = inp(['1, 1, 4, 2, 5', ...CUBE_TETS.slice(1)]);
    const { output } = await run({ geo: GEO, expected_volume: 1, volume_rel_tol: 0.05, max_elements: 4 }, toolResult(inverted));
    expect(output.passed).toBe(false);
    expect(output.checks.map((c) => [c.name, c.passed])).toEqual([
      ['counts_consistent', true],
      ['no_inverted_elements', false],
      ['within_max_elements', false],
      ['volume_matches', false],
    ]);
    expect(output.checks[1].message).toBe('1 element(s) with a non-positive corner volume (inverted or degenerate), e.g. 1');
    expect(output.checks[2].message).toContain('5 elements, more than the limit of 4');
    // 1 - 2/6 = 0.6667: 33.3 % below the expected 1.
    expect(output.checks[3].message).toBe('mesh volume 0.6666666667 vs expected 1 (-33.33333333 %, allowed ±5 %)');
  });

  it('runs only the checks asked for', async () => {
    const { output } = await run({ geo: GEO }, toolResult(inp(CUBE_TETS)));
    expect(output.checks.map((c) => c.name)).toEqual(['counts_consistent', 'no_inverted_elements']);
  });

  it('flags counts that do not match the .inp (a truncated mesh)', async () => {
    const { output } = await run({ geo: GEO }, toolResult(inp(CUBE_TETS), { element_count: 6 }));
    expect(output.checks[0]).toEqual({
      name: 'counts_consistent',
      passed: false,
      message: 'the .inp holds 8 nodes and 5 elements, but gmsh reported 8 and 6',
    });
    expect(output.passed).toBe(false);
  });

  it('refuses an empty mesh with SkillExecutionError', async () => {
    const empty = inp([]);
    const failure = await run({ geo: GEO }, toolResult(empty)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SkillExecutionError);
    expect((failure as Error).message).toContain('gmsh produced an empty mesh');
  });

  it('cannot compare the volume of element types it has no rule for', async () => {
    const { output } = await run({ geo: GEO, expected_volume: 1 }, toolResult(inp(['1, 1, 2, 3, 4, 5'], 'C3D5')));
    expect(output.mesh_volume).toBeNull();
    expect(output.smallest_element_volume).toBeNull();
    expect(output.checks[1].message).toBe('every element has a positive volume (not checked: element types C3D5)');
    expect(output.checks[2]).toMatchObject({ name: 'volume_matches', passed: false });
  });

  it('sends geometry, mesh options and a time limit to gmsh.export_mesh', async () => {
    let seenTimeout: number | undefined;
    const { context } = await run(
      { step: 'ISO-10303-21;', mesh: { size_max: 2, element_order: 2, algorithm: 'hxt', optimize: true } },
      (_p, options) => {
        seenTimeout = options?.timeoutMs;
        return toolResult(inp(CUBE_TETS));
      },
    );
    expect(context.toolCalls).toEqual([
      {
        toolId: MESH_TOOL,
        params: { step: 'ISO-10303-21;', mesh: { size_max: 2, element_order: 2, algorithm: 'hxt', optimize: true }, timeout_seconds: 160 },
      },
    ]);
    expect(seenTimeout).toBe(170_000);
  });

  it('checks preconditions: geometry given, sizes ordered, tool available', async () => {
    const handler = new ExportMeshHandler(createTestContext({ tools: {} }));
    expect(await handler.validatePreconditions(ExportMeshInput.parse({ mesh: { size_min: 3, size_max: 2 } }))).toEqual([
      'give the geometry as geo (a .geo script), step (STEP contents) or geometry_work_product_id (a cad_model work product)',
      'mesh.size_min (3) is larger than mesh.size_max (2)',
      `mesh generation tool (${MESH_TOOL}) is not available`,
    ]);
    await expect(handler.execute(ExportMeshInput.parse({}))).rejects.toBeInstanceOf(SkillExecutionError);
    const ok = new ExportMeshHandler(createTestContext({ tools: { [MESH_TOOL]: {} } }));
    expect(await ok.validatePreconditions(ExportMeshInput.parse({ geo: GEO }))).toEqual([]);
  });

  it('propagates a tool error (e.g. no Physical Volume)', async () => {
    const error = new McpToolError(MESH_TOOL, 'the model has no physical volume: add a Physical Volume');
    await expect(
      run({ geo: GEO }, () => {
        throw error;
      }),
    ).rejects.toBe(error);
  });

  it.each([
    ['no inp', { node_count: 1 }, 'inp'],
    ['a negative count', { ...toolResult(inp(CUBE_TETS)), node_count: -1 }, 'node_count'],
    ['sets as a map', { ...toolResult(inp(CUBE_TETS)), element_sets: { body: 5 } }, 'element_sets'],
  ])('refuses a tool result with %s as SkillExecutionError', async (_case, result, where) => {
    const failure = await run({ geo: GEO }, result).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SkillExecutionError);
    expect((failure as Error).message).toContain(`${MESH_TOOL} returned a result this skill cannot read`);
    expect((failure as Error).message).toContain(where);
  });

  it('validates its input at the schema', () => {
    expect(ExportMeshInput.safeParse({ geo: GEO, mesh: { element_order: 3 } }).success).toBe(false);
    expect(ExportMeshInput.safeParse({ geo: GEO, mesh: { size_max: 0 } }).success).toBe(false);
    expect(ExportMeshInput.safeParse({ geo: GEO, max_elements: 0 }).success).toBe(false);
    expect(ExportMeshInput.safeParse({ geo: GEO, volume_rel_tol: 2 }).success).toBe(false);
    expect(ExportMeshInput.parse({ geo: GEO }).volume_rel_tol).toBe(0.01);
  });

  it('has JSON Schemas with every property described', () => {
    expect(findUndescribedProperties(toJsonSchema(ExportMeshInput, 'input'))).toEqual([]);
    expect(findUndescribedProperties(toJsonSchema(ExportMeshOutput, 'output'))).toEqual([]);
  });

  it('declares gmsh.export_mesh (standing in for the seed freecad.export_mesh)', () => {
    expect(definition.tools_required).toEqual([{ tool_id: MESH_TOOL, capability: 'mesh_generation', required: true }]);
  });

  it('declares version 0.2.1 (0.2.0 with its SKILL.md front matter quoted), which writes to the twin', () => {
    expect([definition.version, definition.read_only]).toEqual(['0.2.1', false]);
  });

  it.each(definition.examples.map((e) => [e.description, e] as const))(
    'runs the declared example against its twin fixtures: %s',
    async (_d, example) => {
      expect(example.output).toBeUndefined();
      const twin = createFakeTwin({
        workProducts: (example.twin?.work_products ?? []).map((fixture) => ({
          id: fixture.id,
          kind: fixture.kind,
          name: fixture.name,
          mediaType: fixture.media_type,
          content: readFileSync(new URL(`./${fixture.content_file}`, import.meta.url), 'utf8'),
          metadata: fixture.metadata,
        })),
      });
      const { output, context } = await run(example.input, toolResult(inp(CUBE_TETS)), twin);
      expect(context.toolCalls[0].params.geo).toContain('Box(1) = {0, 0, 0, 2, 3, 4};');
      expect((await twin.readContent(output.mesh_work_product_id)).text()).toBe(output.inp);
    },
  );
});

describe('export_mesh and the digital twin', () => {
  const GEOMETRY = '7d2c9a4e-1b3f-4e8a-9c61-5f0a2b3c4d5e';
  const geometry = (extra: Record<string, unknown> = {}) => ({
    id: GEOMETRY,
    kind: 'cad_model',
    name: 'cube',
    mediaType: 'text/x-gmsh-geo',
    content: GEO,
    ...extra,
  });

  it('writes the mesh as a mesh work product on the caller branch, with counts and the inline source', async () => {
    const twin = createFakeTwin();
    const { output } = await run({ geo: GEO, mesh: { size_max: 1 } }, toolResult(inp(CUBE_TETS)), twin);
    expect(twin.writes).toEqual([{ id: output.mesh_work_product_id, revision: 1, branch: 'main' }]);
    expect(output.mesh_revision).toBe(1);
    const mesh = await twin.getWorkProduct(output.mesh_work_product_id);
    expect(mesh).toMatchObject({ kind: 'mesh', name: 'mesh' });
    expect(mesh?.current).toMatchObject({ mediaType: 'text/x-calculix-inp', createdBy: 'execution:test-execution' });
    expect(mesh?.current.metadata).toEqual({
      source_key: `inline:sha256:${createHash('sha256').update(GEO).update('\0').digest('hex')}`,
      source_work_product_id: null,
      source_revision: null,
      source_format: 'geo',
      node_count: 8,
      element_count: 5,
      element_types: { C3D4: 5 },
      element_sets: ['body', 'EALL'],
      node_sets: ['NALL'],
      surfaces: ['top'],
      mesh_volume: 1,
      passed: true,
      mesh_options: { size_max: 1 },
    });
    expect((await twin.readContent(output.mesh_work_product_id)).text()).toBe(inp(CUBE_TETS));
  });

  it('meshes a cad_model work product of the branch (.geo or STEP by media type or metadata) and records its revision', async () => {
    const twin = createFakeTwin({ workProducts: [geometry()] });
    const { output, context } = await run({ geometry_work_product_id: GEOMETRY }, toolResult(inp(CUBE_TETS)), twin);
    expect(context.toolCalls[0].params).toEqual({ geo: GEO, timeout_seconds: 160 });
    expect(twin.reads).toEqual([{ id: GEOMETRY, revision: 1, branch: 'main' }]);
    const mesh = await twin.getWorkProduct(output.mesh_work_product_id);
    expect(mesh?.name).toBe('cube mesh');
    expect(mesh?.current.metadata).toMatchObject({
      source_key: `work_product:${GEOMETRY}`,
      source_work_product_id: GEOMETRY,
      source_revision: 1,
      source_format: 'geo',
    });

    const step = createFakeTwin({ workProducts: [geometry({ mediaType: 'model/step', content: 'ISO-10303-21;' })] });
    const fromStep = await run({ geometry_work_product_id: GEOMETRY }, toolResult(inp(CUBE_TETS)), step);
    expect(fromStep.context.toolCalls[0].params).toEqual({ step: 'ISO-10303-21;', timeout_seconds: 160 });
    const declared = createFakeTwin({ workProducts: [geometry({ mediaType: 'text/plain', metadata: { format: 'geo' } })] });
    expect((await run({ geometry_work_product_id: GEOMETRY }, toolResult(inp(CUBE_TETS)), declared)).context.toolCalls[0].params.geo).toBe(
      GEO,
    );
  });

  it('revises one mesh: the given mesh_work_product_id, else the mesh of the same geometry and name; the same mesh again is no new revision', async () => {
    const twin = createFakeTwin({ workProducts: [geometry()] });
    const first = await run({ geometry_work_product_id: GEOMETRY }, toolResult(inp(CUBE_TETS)), twin);
    const again = await run({ geometry_work_product_id: GEOMETRY }, toolResult(inp(CUBE_TETS)), twin);
    expect([again.output.mesh_work_product_id, again.output.mesh_revision]).toEqual([first.output.mesh_work_product_id, 1]);
    const finer = await run({ geometry_work_product_id: GEOMETRY, mesh: { size_max: 0.5 } }, toolResult(inp(CUBE_TETS)), twin);
    expect([finer.output.mesh_work_product_id, finer.output.mesh_revision]).toEqual([first.output.mesh_work_product_id, 2]);
    const named = await run({ geometry_work_product_id: GEOMETRY, mesh_name: 'coarse' }, toolResult(inp(CUBE_TETS)), twin);
    expect(named.output.mesh_work_product_id).not.toBe(first.output.mesh_work_product_id);

    const given = await run({ geo: GEO, mesh_work_product_id: named.output.mesh_work_product_id }, toolResult(inp(CUBE_TETS)), twin);
    expect([given.output.mesh_work_product_id, given.output.mesh_revision]).toEqual([named.output.mesh_work_product_id, 2]);
    expect((await twin.getWorkProduct(named.output.mesh_work_product_id))?.name).toBe('coarse');
  });

  it('fails its preconditions on a geometry or mesh work product missing from the caller branch, naming id and branch', async () => {
    const twin = createFakeTwin({ branches: ['study'] });
    const handler = new ExportMeshHandler(createTestContext({ tools: { [MESH_TOOL]: {} }, twin, branch: 'study' }));
    const mesh = '5b0e8f2a-9c1d-4e3f-8a7b-6c5d4e3f2a1b';
    expect(
      await handler.validatePreconditions(ExportMeshInput.parse({ geometry_work_product_id: GEOMETRY, mesh_work_product_id: mesh })),
    ).toEqual([`Work product ${GEOMETRY} not found on branch study`, `Work product ${mesh} not found on branch study`]);
  });

  it('fails its preconditions on a work product of the wrong kind or format, and on two geometry sources', async () => {
    const twin = createFakeTwin({ workProducts: [geometry({ mediaType: 'application/pdf' })] });
    const handler = new ExportMeshHandler(createTestContext({ tools: { [MESH_TOOL]: {} }, twin }));
    const [format] = await handler.validatePreconditions(ExportMeshInput.parse({ geometry_work_product_id: GEOMETRY }));
    expect(format).toContain(`Work product ${GEOMETRY} (application/pdf) is neither a gmsh .geo script (text/x-gmsh-geo) nor a STEP file`);
    expect(await handler.validatePreconditions(ExportMeshInput.parse({ geo: GEO, mesh_work_product_id: GEOMETRY }))).toEqual([
      `Work product ${GEOMETRY} is a cad_model, not a mesh to add a revision to`,
    ]);
    const both = await handler.validatePreconditions(ExportMeshInput.parse({ geo: GEO, geometry_work_product_id: GEOMETRY }));
    expect(both[0]).toBe('give the geometry either inline (geo and/or step) or as geometry_work_product_id, not both');
  });

  it('writes on its own branch only: another branch does not see the mesh', async () => {
    const twin = createFakeTwin({ workProducts: [geometry()] });
    twin.createBranch('study'); // forked with the geometry on it
    const { output } = await run({ geometry_work_product_id: GEOMETRY }, toolResult(inp(CUBE_TETS)), twin, 'study');
    expect(twin.writes).toEqual([{ id: output.mesh_work_product_id, revision: output.mesh_revision, branch: 'study' }]);
    expect(await twin.getWorkProduct(output.mesh_work_product_id, { branch: 'study' })).not.toBeNull();
    expect(await twin.getWorkProduct(output.mesh_work_product_id, { branch: 'main' })).toBeNull();
    expect(await twin.listWorkProducts({ kind: 'mesh' })).toEqual([]);
  });
});
