import { Program } from '../../common/src/index.js';
import type { AdapterDefinition } from '../../common/src/index.js';
import { exportBomTool } from './export-bom.js';
import { runDrcTool } from './run-drc.js';
import { runErcTool } from './run-erc.js';

export const KICAD_DEFAULT_PORT = 7104;

/** kicad-cli as found in PATH (or at `executable`, e.g. from KICAD_CLI_BIN). */
function kicadProgram(executable = 'kicad-cli'): Program {
  return new Program({
    name: 'kicad-cli',
    executable,
    debianPackage: 'kicad',
    versionArgs: ['version'],
    parseVersion: (output) => /(\d+\.\d+(?:\.\d+)?)/.exec(output)?.[1] ?? null,
  });
}

/** The kicad adapter: `kicad.run_erc`, `kicad.run_drc` and `kicad.export_bom`. */
export function kicadAdapter(options: { executable?: string } = {}): AdapterDefinition {
  const kicad = kicadProgram(options.executable);
  return { name: 'kicad', version: '0.1.0', programs: [kicad], tools: [runErcTool(kicad), runDrcTool(kicad), exportBomTool(kicad)] };
}
