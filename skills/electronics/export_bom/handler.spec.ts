import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { McpToolError, SkillExecutionError, createTestContext, findUndescribedProperties, toJsonSchema } from '@skill-registry/sdk';
import type { FakeTool } from '@skill-registry/sdk';
import { ExportBomHandler } from './handler.js';
import { ExportBomInput, ExportBomOutput } from './schema.js';

const definition = JSON.parse(readFileSync(new URL('./definition.json', import.meta.url), 'utf8')) as {
  examples: { description: string; input: Record<string, unknown>; output: unknown }[];
};

const SCHEMATIC = '(kicad_sch (version 20250114) (generator "eeschema") (lib_symbols))';

const row = (
  references: string[],
  value: string,
  footprint: string,
  description: string,
  fields: Record<string, string> = {},
  extra = {},
) => ({
  references,
  value,
  footprint,
  quantity: references.length,
  dnp: false,
  description,
  datasheet: null,
  library_part: 'Device:X',
  fields,
  mixed_fields: [],
  ...extra,
});

/** What kicad.export_bom returns for the rows given. */
function bomResult(rows: ReturnType<typeof row>[], extra: Record<string, unknown> = {}) {
  const parts = rows.reduce((sum, r) => sum + r.quantity, 0);
  return {
    rows,
    totals: {
      rows: rows.length,
      parts,
      dnp_parts: rows.filter((r) => r.dnp).reduce((s, r) => s + r.quantity, 0),
      excluded_from_bom: 0,
      excluded_dnp: 0,
    },
    group_by: ['Value', 'Footprint'],
    field_names: ['MPN'],
    kicad_version: '9.0.8',
    run_time_seconds: 0.3,
    ...extra,
  };
}

/** kicad.export_bom on test/fixtures/kicad/led_indicator.kicad_sch (the real result, as the adapter gives it). */
const LED_RESULT = bomResult([
  row(['C1'], '100n', 'Capacitor_SMD:C_0603_1608Metric', 'Unpolarized capacitor'),
  row(['D1'], 'LED_red', 'LED_SMD:LED_0603_1608Metric', 'Light emitting diode, anode on top', { MPN: '150060RS75000' }),
  row(['D2'], 'LED_green', 'LED_SMD:LED_0603_1608Metric', 'Light emitting diode, anode on top', { MPN: '150060GS75000' }),
  row(['J1'], 'Conn_01x02', 'Connector_PinHeader_2.54mm:PinHeader_1x02_P2.54mm_Vertical', 'Generic connector, single row, 01x02'),
  row(['R1', 'R2'], '470', 'Resistor_SMD:R_0603_1608Metric', 'Resistor'),
  row(['R3'], '10k', 'Resistor_SMD:R_0603_1608Metric', 'Resistor'),
]);

async function run(tool: FakeTool, raw: Record<string, unknown> = { schematic: SCHEMATIC }) {
  const context = createTestContext({ tools: { 'kicad.export_bom': tool } });
  const handler = new ExportBomHandler(context);
  const input = ExportBomInput.parse(raw);
  return { context, handler, input, output: async () => ExportBomOutput.parse(await handler.execute(input)) };
}

describe('export_bom', () => {
  it('numbers the lines, totals the parts and writes a CSV', async () => {
    const { output, context } = await run(LED_RESULT);
    const out = await output();
    expect(out.lines.map((l) => [l.item, l.designators, l.quantity, l.value])).toEqual([
      [1, 'C1', 1, '100n'],
      [2, 'D1', 1, 'LED_red'],
      [3, 'D2', 1, 'LED_green'],
      [4, 'J1', 1, 'Conn_01x02'],
      [5, 'R1, R2', 2, '470'],
      [6, 'R3', 1, '10k'],
    ]);
    expect(out.totals).toEqual({ line_items: 6, parts: 7, fitted_parts: 7, dnp_parts: 0, excluded_from_bom: 0, excluded_dnp: 0 });
    expect(out.csv.split('\n').slice(0, 3)).toEqual([
      'Item,References,Quantity,Value,Footprint,DNP,Description,MPN',
      '1,C1,1,100n,Capacitor_SMD:C_0603_1608Metric,,Unpolarized capacitor,',
      '2,D1,1,LED_red,LED_SMD:LED_0603_1608Metric,,"Light emitting diode, anode on top",150060RS75000',
    ]);
    expect(context.toolCalls).toEqual([
      { toolId: 'kicad.export_bom', params: { schematic: SCHEMATIC, group_by: ['Value', 'Footprint'], timeout_seconds: 90 } },
    ]);
  });

  it('passes grouping and DNP options to the tool and marks DNP lines', async () => {
    const result = bomResult([row(['C1'], '100n', 'C_0603', 'Cap', {}, { dnp: true }), row(['C2', 'C3'], '100n', 'C_0603', 'Cap "X7R"')], {
      group_by: ['Value', 'Footprint', 'MPN'],
      field_names: [],
    });
    const raw = {
      schematic: SCHEMATIC,
      group_by: ['Value', 'Footprint', 'MPN'],
      include_excluded_from_bom: true,
      fields: ['Manufacturer'],
    };
    const { output, context } = await run(result, raw);
    const out = await output();
    expect(out.totals).toMatchObject({ parts: 3, fitted_parts: 2, dnp_parts: 1 });
    expect(out.csv).toBe(
      'Item,References,Quantity,Value,Footprint,DNP,Description,Manufacturer\n' +
        '1,C1,1,100n,C_0603,DNP,Cap,\n' +
        '2,"C2, C3",2,100n,C_0603,,"Cap ""X7R""",\n',
    );
    expect(context.toolCalls[0].params).toEqual({
      schematic: SCHEMATIC,
      group_by: ['Value', 'Footprint', 'MPN'],
      include_excluded_from_bom: true,
      timeout_seconds: 90,
    });
  });

  it('fails the preconditions when the tool is unavailable or the input cannot be exported', async () => {
    const context = createTestContext({ tools: { 'kicad.export_bom': LED_RESULT }, unavailable: ['kicad.export_bom'] });
    const handler = new ExportBomHandler(context);
    const input = ExportBomInput.parse({
      schematic: `${SCHEMATIC.slice(0, -1)} (sheet (property "Sheetfile" "leds.kicad_sch")))`,
      group_by: ['reference'],
    });
    expect(await handler.validatePreconditions(input)).toEqual([
      "tool 'kicad.export_bom' is not available: the kicad adapter is not reachable or kicad-cli is not installed there",
      "schematic refers to sheet file 'leds.kicad_sch', which is not among sheets; give its content too",
      'group_by cannot contain Reference: every part has its own (give [] for one line per part)',
    ]);
    await expect(handler.execute(input)).rejects.toBeInstanceOf(SkillExecutionError);
    expect(context.toolCalls).toEqual([]);
  });

  it('lets a tool error through as it is', async () => {
    const { handler, input } = await run(() => {
      throw new McpToolError(
        'kicad.export_bom',
        "kicad-cli is not installed (Debian package 'kicad'); the tool cannot run on this adapter",
      );
    });
    await expect(handler.execute(input)).rejects.toThrow("Tool 'kicad.export_bom' failed: kicad-cli is not installed");
  });

  it('refuses a tool result it does not understand or whose totals do not add up', async () => {
    const shape = await run({ rows: [{ references: [] }] });
    await expect(shape.handler.execute(shape.input)).rejects.toThrow(
      /^kicad\.export_bom returned a result this skill cannot read: at rows\.0\.references: /,
    );
    const quantity = await run({ ...LED_RESULT, rows: [{ ...LED_RESULT.rows[4], quantity: 3 }] });
    await expect(quantity.handler.execute(quantity.input)).rejects.toThrow('the row of R1, R2 has quantity 3');
    const totals = await run({ ...LED_RESULT, totals: { ...LED_RESULT.totals, parts: 8 } });
    await expect(totals.handler.execute(totals.input)).rejects.toThrow('totals say 6 rows / 8 parts, the rows hold 6 / 7');
    const twice = await run(bomResult([LED_RESULT.rows[0], LED_RESULT.rows[0]]));
    await expect(twice.handler.execute(twice.input)).rejects.toThrow('reference C1 is listed twice');
  });

  it('has JSON Schemas with every property described', () => {
    expect(findUndescribedProperties(toJsonSchema(ExportBomInput, 'input'))).toEqual([]);
    expect(findUndescribedProperties(toJsonSchema(ExportBomOutput, 'output'))).toEqual([]);
  });

  it('gives the declared output of the example for the result kicad.export_bom gives on it', async () => {
    const [example] = definition.examples;
    expect(ExportBomOutput.safeParse(example.output).success).toBe(true);
    const { output } = await run(LED_RESULT, example.input);
    expect(await output()).toEqual(example.output);
  });
});
