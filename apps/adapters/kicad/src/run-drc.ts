import { defineTool, inputRejected } from '../../common/src/index.js';
import type { Program } from '../../common/src/index.js';
import { projectNameOf, writeBoard, writeProject, writeSchematic } from './design-files.js';
import { kicadVersion, runKicad, seconds } from './kicad-run.js';
import { countBy, parseDrcJson, withoutLibraryChecks } from './report.js';
import { runDrcInputSchema, runDrcOutputSchema } from './schema.js';
import type { RunDrcOutput } from './schema.js';

/** `kicad.run_drc`: design rules check of a board with `kicad-cli pcb drc`, optionally against its schematic. */
export function runDrcTool(kicad: Program) {
  return defineTool({
    name: 'run_drc',
    title: 'Design rules check (KiCad)',
    description:
      'Run the KiCad design rules check (kicad-cli pcb drc) on a board given as .kicad_pcb text, with the project design rules ' +
      'and custom rules when given, and optionally schematic parity. Returns violations (rule, severity, message, clearance ' +
      'or width limit and actual value in mm, items with net/layer/position), unconnected items and counts.',
    capability: 'design_rules_check',
    category: 'verification',
    program: kicad,
    inputSchema: runDrcInputSchema,
    outputSchema: runDrcOutputSchema,
    timeoutSecondsOf: (input) => input.timeout_seconds,
    async handler(input, context): Promise<RunDrcOutput> {
      const version = await kicadVersion(kicad);
      if (input.sheets?.length && input.schematic === undefined)
        throw inputRejected("'sheets' are sub-sheets of 'schematic', which is missing");
      const projectName = projectNameOf(input.schematic);
      const board = await writeBoard(context, input.board, projectName);
      // KiCad reads the board's design rules from the project: <project>.kicad_pro, and <project>.kicad_dru next to it.
      if (input.schematic !== undefined) await writeSchematic(context, { schematic: input.schematic, sheets: input.sheets }, projectName);
      if (input.project !== undefined || input.custom_rules !== undefined) await writeProject(context, input.project ?? '{}', projectName);
      if (input.custom_rules !== undefined) {
        if (!/^\s*\(\s*version\b/.test(input.custom_rules)) {
          throw inputRejected("'custom_rules' must be the text of a .kicad_dru file, starting with '(version 1)'");
        }
        await context.writeInput(`${projectName}.kicad_dru`, input.custom_rules, 'custom_rules');
      }

      const args = ['pcb', 'drc', '--format', 'json', '--units', 'mm', '--severity-all'];
      if (input.schematic !== undefined) args.push('--schematic-parity');
      if (input.all_track_errors) args.push('--all-track-errors');
      const json = await runKicad(context, [...args, '-o', 'drc.json', board], 'drc.json', 'check the board');
      const parsed = parseDrcJson(json.output);

      const keep = input.library_checks ?? false;
      const violations = withoutLibraryChecks(parsed.violations, keep);
      const parity = withoutLibraryChecks(parsed.parity, keep);
      const all = [...violations.kept, ...parsed.unconnected, ...parity.kept];
      const counts = {
        error: 0,
        warning: 0,
        exclusion: 0,
        violations: violations.kept.length,
        unconnected_items: parsed.unconnected.length,
        schematic_parity: parity.kept.length,
      };
      for (const entry of all) counts[entry.severity]++;
      return {
        passed: counts.error === 0,
        violations: violations.kept,
        unconnected_items: parsed.unconnected,
        schematic_parity: parity.kept,
        parity_checked: input.schematic !== undefined,
        counts,
        counts_by_type: countBy(all, (entry) => entry.type),
        kicad_version: parsed.kicadVersion ?? version,
        run_time_seconds: seconds([json.run]),
        library_checks_skipped: violations.skipped + parity.skipped,
        warnings: [],
      };
    },
  });
}
