import { defineTool, diagnosticsOf, ToolFailure } from '../../common/src/index.js';
import type { Program } from '../../common/src/index.js';
import { gmshMessages, runGmsh, writeGeometry } from './gmsh-run.js';
import { toCalculixMesh } from './inp-rewrite.js';
import { exportMeshInputSchema, exportMeshOutputSchema } from './schema.js';
import type { ExportMeshInput, ExportMeshOutput } from './schema.js';

const ALGORITHMS = { delaunay: 'del3d', frontal: 'front3d', hxt: 'hxt' } as const;

/** `gmsh.export_mesh`: mesh a geometry in 3-D with gmsh and return a CalculiX-ready .inp with sets and surfaces. */
export function exportMeshTool(gmsh: Program) {
  return defineTool({
    name: 'export_mesh',
    title: 'FEA mesh for CalculiX (gmsh)',
    description:
      'Mesh a geometry (.geo script and/or STEP) in 3-D with gmsh and return a CalculiX-ready .inp: solid elements, an element ' +
      'set per physical volume, a node set per physical group and an element-face surface per physical surface, with counts.',
    capability: 'mesh_generation',
    category: 'conversion',
    program: gmsh,
    inputSchema: exportMeshInputSchema,
    outputSchema: exportMeshOutputSchema,
    timeoutSecondsOf: (input) => input.timeout_seconds,
    async handler(input, context): Promise<ExportMeshOutput> {
      const script = await writeGeometry(context, input);
      const run = await runGmsh(context, [
        script,
        '-3',
        ...meshArgs(input.mesh),
        '-format',
        'inp',
        '-setnumber',
        'Mesh.SaveGroupsOfNodes',
        '1',
        '-o',
        'mesh.inp',
      ]);
      const gmshInp = await context.readResult('mesh.inp');
      if (gmshInp === null) throw new ToolFailure('PROGRAM_FAILED', 'gmsh finished without writing the mesh', diagnosticsOf(run));
      const version = (await gmsh.probe()).version;
      let mesh;
      try {
        mesh = toCalculixMesh(gmshInp, `Mesh exported by gmsh ${version ?? ''} for CalculiX`.replace(/\s+/g, ' '));
      } catch (error) {
        throw new ToolFailure('PROGRAM_FAILED', (error as Error).message, diagnosticsOf(run));
      }
      if (Buffer.byteLength(mesh.inp) > context.limits.maxOutputBytes) {
        throw new ToolFailure(
          'OUTPUT_LIMIT',
          `the mesh is larger than the adapter's output limit (MAX_OUTPUT_BYTES); use a coarser mesh size`,
        );
      }
      return {
        inp: mesh.inp,
        node_count: mesh.nodeCount,
        element_count: mesh.elementCount,
        element_types: mesh.elementTypes,
        element_sets: mesh.elementSets,
        node_sets: mesh.nodeSets,
        surfaces: mesh.surfaces,
        dropped_elements: mesh.droppedElements,
        gmsh_version: version,
        warnings: gmshMessages(run, 'Warning').slice(0, 50),
      };
    },
  });
}

function meshArgs(mesh: ExportMeshInput['mesh']): string[] {
  const args: string[] = [];
  if (!mesh) return args;
  if (mesh.size_max !== undefined) args.push('-clmax', String(mesh.size_max));
  if (mesh.size_min !== undefined) args.push('-clmin', String(mesh.size_min));
  if (mesh.size_factor !== undefined) args.push('-clscale', String(mesh.size_factor));
  if (mesh.element_order !== undefined) args.push('-order', String(mesh.element_order));
  if (mesh.algorithm !== undefined) args.push('-algo', ALGORITHMS[mesh.algorithm]);
  if (mesh.optimize) args.push('-optimize');
  return args;
}
