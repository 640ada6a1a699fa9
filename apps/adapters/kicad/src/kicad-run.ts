import { diagnosticsOf, ToolFailure } from '../../common/src/index.js';
import type { Program, ProgramRun, ToolRunContext } from '../../common/src/index.js';

/** Oldest KiCad whose kicad-cli has `sch erc` and `pcb drc` (KiCad 8); the adapter is built and tested with KiCad 9. */
const MIN_MAJOR = 8;

/** The version of the installed kicad-cli, refusing versions without the commands the tools use. */
export async function kicadVersion(kicad: Program): Promise<string | null> {
  const version = (await kicad.probe()).version;
  const major = version ? Number(version.split('.')[0]) : NaN;
  if (Number.isFinite(major) && major < MIN_MAJOR) {
    throw new ToolFailure(
      'PROGRAM_FAILED',
      `kicad-cli ${version} is too old: ERC, DRC and this BOM export need KiCad ${MIN_MAJOR} or later (KiCad 9 comes from bookworm-backports)`,
    );
  }
  return version;
}

/** Lines of kicad-cli's output that say why it failed ("Failed to load schematic", ...). */
function failureLines(run: ProgramRun): string[] {
  const lines = `${run.stderr}\n${run.stdout}`
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => /fail|error|cannot|could not|unable|not found|invalid/i.test(line));
  return [...new Set(lines)].slice(0, 5);
}

/**
 * Run kicad-cli and read the file it was asked to write. A non-zero exit, a crash, or a missing output file is
 * PROGRAM_FAILED with kicad-cli's own words (exit code 3 with "Failed to load schematic" / "Failed to load board"
 * is what a file it cannot parse gives).
 */
export async function runKicad(
  context: ToolRunContext,
  args: string[],
  outputFile: string,
  what: string,
): Promise<{ run: ProgramRun; output: string }> {
  const run = await context.run(args);
  if (run.exitCode !== 0 || run.signal) {
    const reasons = failureLines(run);
    const why = run.signal ? `crashed with ${run.signal}` : `exit code ${run.exitCode}`;
    throw new ToolFailure(
      'PROGRAM_FAILED',
      `kicad-cli could not ${what} (${why})${reasons.length ? `: ${reasons.join(' | ')}` : ''}`,
      diagnosticsOf(run),
    );
  }
  const output = await context.readResult(outputFile);
  if (output === null) {
    throw new ToolFailure('PROGRAM_FAILED', `kicad-cli finished but did not write ${outputFile} (${what})`, diagnosticsOf(run));
  }
  return { run, output };
}

export const seconds = (runs: ProgramRun[]) => Math.round(runs.reduce((sum, run) => sum + run.durationMs, 0)) / 1000;
