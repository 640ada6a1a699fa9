import { Program } from '../../common/src/index.js';
import type { AdapterDefinition } from '../../common/src/index.js';
import { runFeaTool } from './run-fea.js';
import { runThermalTool } from './run-thermal.js';

export const CALCULIX_DEFAULT_PORT = 7102;

/** CalculiX's ccx as found in PATH (or at `executable`, e.g. from CCX_BIN). */
function ccxProgram(executable = 'ccx'): Program {
  return new Program({
    name: 'CalculiX (ccx)',
    executable,
    debianPackage: 'calculix-ccx',
    versionArgs: ['-v'],
    parseVersion: (output) => /Version\s+(\S+)/i.exec(output)?.[1] ?? null,
  });
}

/** The calculix adapter: `calculix.run_fea` and `calculix.run_thermal`. */
export function calculixAdapter(options: { executable?: string } = {}): AdapterDefinition {
  const ccx = ccxProgram(options.executable);
  return { name: 'calculix', version: '0.1.0', programs: [ccx], tools: [runFeaTool(ccx), runThermalTool(ccx)] };
}
