// The gmsh adapter with the real gmsh, called through the MCP bridge; its mesh is then solved by the real CalculiX.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpToolError } from '@skill-registry/sdk';
import { McpBridgeClient } from '#mcp-bridge/index.js';
import { calculixAdapter } from '../../apps/adapters/calculix/src/adapter.js';
import { gmshAdapter } from '../../apps/adapters/gmsh/src/adapter.js';
import type { RunningAdapter } from '../../apps/adapters/common/src/index.js';
import { isolateScratchRoot, startInProcess } from './support.js';
import { uniaxialDeck } from '../support/block-decks.js';

// A 2 × 3 × 4 box. OpenCASCADE numbers its faces x=0, x=2, y=0, y=3, z=0, z=4 (1..6) and its corners
// (0,0,4), (0,0,0), (0,3,4), (0,3,0), (2,0,4), (2,0,0), (2,3,4), (2,3,0) (1..8).
const BOX_GEO = `SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 2, 3, 4};
Physical Volume("body") = {1};
Physical Surface("bottom") = {5};
Physical Surface("top") = {6};
Physical Point("origin") = {2};
Physical Point("xcorner") = {6};
Physical Point("far") = {7};
`;

// Volume, box and distances of a box are exact in CAD arithmetic; 1e-6 relative leaves room only for rounding.
const REL = 1e-6;
const close = (actual: number, expected: number) => Math.abs(actual - expected) <= REL * Math.max(1, Math.abs(expected));

isolateScratchRoot();
let gmsh: RunningAdapter;
let calculix: RunningAdapter;
let bridge: McpBridgeClient;

beforeAll(async () => {
  gmsh = await startInProcess(gmshAdapter());
  calculix = await startInProcess(calculixAdapter());
  bridge = new McpBridgeClient({
    adapters: new Map([
      ['gmsh', gmsh.url],
      ['calculix', calculix.url],
    ]),
  });
});

afterAll(async () => {
  await bridge?.close();
  await gmsh?.close();
  await calculix?.close();
});

describe('gmsh.measure on a box', () => {
  it('gives the exact volume, bounding box, face areas and distances', async () => {
    const result = (await bridge.invoke('gmsh.measure', {
      geo: BOX_GEO,
      distances: [
        { from: 'origin', to: 'far' },
        { from: 'bottom', to: 'top' },
      ],
    })) as any;
    expect(result.kernel).toBe('opencascade');
    expect(close(result.volume, 24)).toBe(true);
    expect(close(result.volumes.body, 24)).toBe(true);
    expect(close(result.surface_area, 52)).toBe(true);
    expect(close(result.surface_areas.bottom, 6)).toBe(true);
    expect(close(result.surface_areas.top, 6)).toBe(true);
    result.bounding_box.min.forEach((value: number) => expect(close(value, 0)).toBe(true));
    result.bounding_box.max.forEach((value: number, axis: number) => expect(close(value, [2, 3, 4][axis])).toBe(true));
    const [corners, faces] = result.distances;
    expect(corners).toMatchObject({ kind: 'point_to_point' });
    expect(close(corners.distance, Math.sqrt(29))).toBe(true); // √(2² + 3² + 4²)
    expect(faces).toMatchObject({ kind: 'centroid_to_centroid' });
    expect(close(faces.distance, 4)).toBe(true);
    expect(result.entity_counts).toEqual({ points: 8, curves: 12, surfaces: 6, volumes: 1 });
  });

  it('measures a STEP file (exported by gmsh from the same box)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gmsh-step-'));
    try {
      writeFileSync(join(dir, 'box.geo'), 'SetFactory("OpenCASCADE");\nBox(1) = {0, 0, 0, 2, 3, 4};\n');
      execFileSync('gmsh', ['box.geo', '-0', '-o', 'box.step'], { cwd: dir, stdio: 'ignore' });
      const step = readFileSync(join(dir, 'box.step'), 'utf8');
      const result = (await bridge.invoke('gmsh.measure', { step })) as any;
      expect(close(result.volume, 24)).toBe(true);
      result.bounding_box.size.forEach((value: number, axis: number) => expect(close(value, [2, 3, 4][axis])).toBe(true));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says so when the built-in kernel cannot give volumes, but still gives the exact box', async () => {
    const builtIn =
      'Point(1) = {0, 0, 0, 1};\nExtrude {2, 0, 0} { Point{1}; }\nExtrude {0, 3, 0} { Line{1}; }\nExtrude {0, 0, 4} { Surface{5}; }\n';
    const result = (await bridge.invoke('gmsh.measure', { geo: builtIn })) as any;
    expect(result.kernel).toBe('built-in');
    expect(result.volume).toBeNull();
    expect(result.bounding_box.size).toEqual([2, 3, 4]);
    expect(result.warnings.join(' ')).toContain('SetFactory("OpenCASCADE")');
  });
});

describe('gmsh.export_mesh on a box', () => {
  it('writes a CalculiX-ready .inp with element sets, node sets and surfaces from the physical groups', async () => {
    const mesh = (await bridge.invoke('gmsh.export_mesh', { geo: BOX_GEO, mesh: { size_max: 1 } })) as any;
    const inp: string = mesh.inp;
    expect(inp).toContain('*ELSET, ELSET=body');
    expect(inp).toContain('*ELSET, ELSET=EALL');
    expect(inp).toContain('*NSET, NSET=bottom');
    expect(inp).toContain('*SURFACE, NAME=top, TYPE=ELEMENT');
    expect(inp).not.toMatch(/TYPE=CPS|TYPE=S3/); // surface elements are not exported as shells
    expect(mesh.element_types).toEqual({ C3D4: mesh.element_count });
    expect(mesh.element_sets).toContainEqual({ name: 'body', element_count: mesh.element_count });
    expect(mesh.node_sets).toContainEqual({ name: 'origin', node_count: 1 });
    // Every triangle of a face is one tetrahedron face: each face set has as many faces as gmsh wrote triangles.
    const top = mesh.surfaces.find((surface: any) => surface.name === 'top');
    expect(top.face_count).toBeGreaterThan(0);
    expect(mesh.dropped_elements).toBe(2 * top.face_count);
    expect((inp.match(/^\d+, \d+, \d+, \d+, \d+$/gm) ?? []).length).toBe(mesh.element_count);

    const quadratic = (await bridge.invoke('gmsh.export_mesh', { geo: BOX_GEO, mesh: { size_max: 2, element_order: 2 } })) as any;
    expect(Object.keys(quadratic.element_types)).toEqual(['C3D10']);
  });

  it('gives a mesh CalculiX solves exactly: uniaxial compression of the box', async () => {
    const mesh = (await bridge.invoke('gmsh.export_mesh', { geo: BOX_GEO, mesh: { size_max: 1 } })) as any;
    // Bottom on rollers (z fixed), two corners against rigid-body motion, 10 MPa on the top face: a uniform
    // uniaxial stress σzz = -10 MPa that linear tetrahedra represent exactly. So von Mises is 10 MPa everywhere and
    // the top moves by p·H/E; 1e-4 relative covers the six digits CalculiX prints.
    // The box's mesh names its corner node sets itself (physical groups in BOX_GEO).
    const deck = uniaxialDeck({ origin: 'origin', xcorner: 'xcorner' });
    const result = (await bridge.invoke('calculix.run_fea', { deck, include_files: [{ name: 'mesh.inp', content: mesh.inp }] })) as any;
    expect(Math.abs(result.max_von_mises.BODY - 10) / 10).toBeLessThan(1e-4);
    expect(Math.abs(-result.displacement.z.min - (10 * 4) / 210_000) / ((10 * 4) / 210_000)).toBeLessThan(1e-4);
    expect(result.mesh_elements).toBe(mesh.element_count);
  });

  it('explains a model without a physical volume', async () => {
    const error = (await bridge
      .invoke('gmsh.export_mesh', {
        geo: 'SetFactory("OpenCASCADE");\nBox(1) = {0, 0, 0, 1, 1, 1};\nPhysical Surface("skin") = {1, 2, 3, 4, 5, 6};\n',
      })
      .catch((e: unknown) => e)) as McpToolError;
    expect(error).toBeInstanceOf(McpToolError);
    expect(error.message).toContain('add a Physical Volume');
  });
});

describe('gmsh adapter refuses scripts that reach outside the scratch directory', () => {
  it.each([
    ['SystemCall "touch /tmp/owned";', "'SystemCall' is not allowed"],
    ['Merge "/etc/passwd";', 'looks like a path outside'],
    ['Include "../other.geo";', 'looks like a path outside'],
    ['Merge StrCat("mod", "el.step");', '\'Merge\' must be followed by a plain "file name" literal'],
    ['Printf("x") > StrCat("a", ".txt");', 'a Printf redirection must name a plain "file name" literal'],
  ])('%s', async (geo, message) => {
    const error = (await bridge.invoke('gmsh.measure', { geo }).catch((e: unknown) => e)) as McpToolError;
    expect(error).toBeInstanceOf(McpToolError);
    expect(error.message).toContain(message);
    expect((error.details.adapterError as any).error.code).toBe('INPUT_REJECTED');
  });
});
