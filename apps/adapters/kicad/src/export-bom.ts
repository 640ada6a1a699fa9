import { defineTool, inputRejected } from '../../common/src/index.js';
import type { Program } from '../../common/src/index.js';
import { fieldNames, groupBom, netlistComponents } from './bom.js';
import { projectNameOf, writeSchematic } from './design-files.js';
import { kicadVersion, runKicad, seconds } from './kicad-run.js';
import { exportBomInputSchema, exportBomOutputSchema } from './schema.js';
import type { ExportBomOutput } from './schema.js';

const DEFAULT_GROUP_BY = ['Value', 'Footprint'];

/** `kicad.export_bom`: bill of materials of a schematic, from the netlist `kicad-cli sch export netlist` writes. */
export function exportBomTool(kicad: Program) {
  return defineTool({
    name: 'export_bom',
    title: 'Bill of materials (KiCad)',
    description:
      'Export the bill of materials of a schematic given as .kicad_sch text (plus sub-sheets): kicad-cli exports the netlist ' +
      '(every part with all its fields, DNP and exclude-from-BOM flags), and parts are grouped into rows by the chosen fields ' +
      '(default Value and Footprint). Returns rows {references, value, footprint, quantity, dnp, fields} and totals.',
    capability: 'bom_export',
    category: 'conversion',
    program: kicad,
    inputSchema: exportBomInputSchema,
    outputSchema: exportBomOutputSchema,
    timeoutSecondsOf: (input) => input.timeout_seconds,
    async handler(input, context): Promise<ExportBomOutput> {
      const version = await kicadVersion(kicad);
      const groupBy = input.group_by ?? DEFAULT_GROUP_BY;
      const reference = groupBy.find((name) => name.toLowerCase() === 'reference');
      if (reference)
        throw inputRejected(`group_by cannot contain '${reference}': every part has its own reference (give [] for one row per part)`);
      const root = await writeSchematic(context, input, projectNameOf(input.schematic));
      const netlist = await runKicad(
        context,
        ['sch', 'export', 'netlist', '--format', 'kicadsexpr', '-o', 'bom.net', root],
        'bom.net',
        'export the netlist of the schematic',
      );
      const components = netlistComponents(netlist.output);
      const inBom = input.include_excluded_from_bom ? components : components.filter((part) => !part.excludedFromBom);
      const listed = input.exclude_dnp ? inBom.filter((part) => !part.dnp) : inBom;
      const rows = groupBom(listed, groupBy);
      return {
        rows,
        totals: {
          rows: rows.length,
          parts: listed.length,
          dnp_parts: listed.filter((part) => part.dnp).length,
          excluded_from_bom: components.length - inBom.length,
          excluded_dnp: inBom.length - listed.length,
        },
        group_by: groupBy,
        field_names: fieldNames(components),
        kicad_version: version,
        run_time_seconds: seconds([netlist.run]),
      };
    },
  });
}
