import { Program } from '../../common/src/index.js';
import type { AdapterDefinition } from '../../common/src/index.js';
import { simulateTool } from './simulate.js';

export const SPICE_DEFAULT_PORT = 7101;

/** ngspice as found in PATH (or at `executable`, e.g. from NGSPICE_BIN). */
function ngspiceProgram(executable = 'ngspice'): Program {
  return new Program({
    name: 'ngspice',
    executable,
    debianPackage: 'ngspice',
    versionArgs: ['-v'],
    parseVersion: (output) => /ngspice-(\S+)/.exec(output)?.[1] ?? null,
  });
}

/** The spice adapter: `spice.simulate`. */
export function spiceAdapter(options: { executable?: string } = {}): AdapterDefinition {
  const ngspice = ngspiceProgram(options.executable);
  return { name: 'spice', version: '0.1.0', programs: [ngspice], tools: [simulateTool(ngspice)] };
}
