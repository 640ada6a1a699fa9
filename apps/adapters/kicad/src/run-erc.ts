import { defineTool } from '../../common/src/index.js';
import type { Program } from '../../common/src/index.js';
import { projectNameOf, writeSchematic } from './design-files.js';
import { kicadVersion, runKicad, seconds } from './kicad-run.js';
import { countBy, ercPositionScale, ercViolations, parseErcJson, parseReportPositions, withoutLibraryChecks } from './report.js';
import { runErcInputSchema, runErcOutputSchema } from './schema.js';
import type { RunErcOutput } from './schema.js';

/** `kicad.run_erc`: electrical rules check of a schematic with `kicad-cli sch erc`. */
export function runErcTool(kicad: Program) {
  return defineTool({
    name: 'run_erc',
    title: 'Electrical rules check (KiCad)',
    description:
      'Run the KiCad electrical rules check (kicad-cli sch erc) on a schematic given as .kicad_sch text (plus sub-sheets and the ' +
      'project file). Returns every violation with severity, rule id, message, sheet and the items involved (reference, pin, ' +
      'position in mm), and counts by severity and rule.',
    capability: 'electrical_rules_check',
    category: 'verification',
    program: kicad,
    inputSchema: runErcInputSchema,
    outputSchema: runErcOutputSchema,
    timeoutSecondsOf: (input) => input.timeout_seconds,
    async handler(input, context): Promise<RunErcOutput> {
      const version = await kicadVersion(kicad);
      const root = await writeSchematic(context, input, projectNameOf(input.schematic));
      const common = ['--units', 'mm', '--severity-all'];
      const json = await runKicad(
        context,
        ['sch', 'erc', '--format', 'json', ...common, '-o', 'erc.json', root],
        'erc.json',
        'check the schematic',
      );
      const parsed = parseErcJson(json.output);

      // Positions: the JSON report's schematic coordinates are off by a factor (see ercPositionScale); the text
      // report of the same run settles it.
      const warnings: string[] = [];
      const text = await runKicad(
        context,
        ['sch', 'erc', '--format', 'report', ...common, '-o', 'erc.rpt', root],
        'erc.rpt',
        'write the ERC text report',
      );
      const { scale, reason } = ercPositionScale(parsed, parseReportPositions(text.output));
      if (scale === null) warnings.push(`item positions are not reported: they could not be verified (${reason})`);

      const { kept, skipped } = withoutLibraryChecks(ercViolations(parsed, scale), input.library_checks ?? false);
      const counts = { error: 0, warning: 0, exclusion: 0, total: kept.length };
      for (const violation of kept) counts[violation.severity]++;
      return {
        passed: counts.error === 0,
        violations: kept,
        counts,
        counts_by_type: countBy(kept, (violation) => violation.type),
        sheets: parsed.sheets,
        kicad_version: parsed.kicadVersion ?? version,
        run_time_seconds: seconds([json.run, text.run]),
        library_checks_skipped: skipped,
        warnings,
      };
    },
  });
}
