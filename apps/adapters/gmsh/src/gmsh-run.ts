import { diagnosticsOf, inputRejected, ToolFailure } from '../../common/src/index.js';
import type { ProgramRun, ToolRunContext } from '../../common/src/index.js';
import { checkGeoScript } from './geo-guard.js';

/** Main script of every call. */
export const MODEL_GEO = 'model.geo';

/** Write the geometry of the call (a checked .geo script and/or a STEP file) and return the script to open. */
export async function writeGeometry(context: ToolRunContext, input: { geo?: string; step?: string }): Promise<string> {
  if (input.geo === undefined && input.step === undefined)
    throw inputRejected("give the geometry as 'geo' (a .geo script), 'step' (STEP contents), or both");
  if (input.step !== undefined) await context.writeInput('model.step', input.step);
  if (input.geo !== undefined) {
    checkGeoScript(input.geo);
    await context.writeInput(MODEL_GEO, input.geo);
  } else {
    await context.writeInput(MODEL_GEO, 'SetFactory("OpenCASCADE");\nMerge "model.step";\n');
  }
  return MODEL_GEO;
}

/** Lines gmsh tagged as errors or warnings. */
export function gmshMessages(run: ProgramRun, kind: 'Error' | 'Warning'): string[] {
  const pattern = new RegExp(`^${kind}\\s*:\\s*`);
  const lines = `${run.stdout}\n${run.stderr}`.split(/\r?\n/).filter((line) => pattern.test(line.trim()));
  return [...new Set(lines.map((line) => line.trim().replace(pattern, '')))];
}

/** Run gmsh; a non-zero exit becomes PROGRAM_FAILED with gmsh's error lines (except those in `tolerated`). */
export async function runGmsh(context: ToolRunContext, args: string[], tolerated: RegExp[] = []): Promise<ProgramRun> {
  const run = await context.run(args);
  const errors = gmshMessages(run, 'Error').filter((line) => !tolerated.some((pattern) => pattern.test(line)));
  if (run.signal || (run.exitCode !== 0 && errors.length > 0) || (run.exitCode !== 0 && tolerated.length === 0)) {
    const why =
      errors.length > 0 ? errors.slice(0, 5).join(' | ') : run.signal ? `crashed with ${run.signal}` : `exit code ${run.exitCode}`;
    throw new ToolFailure('PROGRAM_FAILED', `gmsh failed: ${why}`, diagnosticsOf(run));
  }
  return run;
}
