import { Program } from '../../common/src/index.js';
import type { AdapterDefinition } from '../../common/src/index.js';
import { exportMeshTool } from './export-mesh.js';
import { measureTool } from './measure.js';

export const GMSH_DEFAULT_PORT = 7103;

/** gmsh as found in PATH (or at `executable`, e.g. from GMSH_BIN). */
function gmshProgram(executable = 'gmsh'): Program {
  return new Program({
    name: 'gmsh',
    executable,
    debianPackage: 'gmsh',
    versionArgs: ['--version'],
    parseVersion: (output) => /(\d+\.\d+\.\d+)/.exec(output)?.[1] ?? null,
  });
}

/** The gmsh adapter: `gmsh.export_mesh` and `gmsh.measure`. */
export function gmshAdapter(options: { executable?: string } = {}): AdapterDefinition {
  const gmsh = gmshProgram(options.executable);
  return { name: 'gmsh', version: '0.1.0', programs: [gmsh], tools: [exportMeshTool(gmsh), measureTool(gmsh)] };
}
