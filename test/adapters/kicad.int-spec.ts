// The kicad adapter with the real kicad-cli (KiCad 9), called through the MCP bridge, on small designs written for
// the suite (test/fixtures/kicad, described in its README); then the electronics skills on their declared examples.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { McpToolError } from '@skill-registry/sdk';
import type { SkillContext, SkillHandlerClass, SkillLogger } from '@skill-registry/sdk';
import { createFakeTwin } from '@skill-registry/sdk/testing';
import { McpBridgeClient } from '#mcp-bridge/index.js';
import { SkillPackageLoader } from '#skill-loader/index.js';
import { kicadAdapter } from '../../apps/adapters/kicad/src/adapter.js';
import type { RunningAdapter } from '../../apps/adapters/common/src/index.js';
import { freePort, isolateScratchRoot, processesUnder, startAdapterProcess, startInProcess, waitUntil } from './support.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/kicad/${name}`, import.meta.url), 'utf8');
const LED = fixture('led_indicator.kicad_sch');
const LED_ERC_ERROR = fixture('led_indicator_erc_error.kicad_sch');
const PULLUPS_ROOT = fixture('pullups_demo.kicad_sch');
const PULLUPS_SHEET = fixture('pullups.kicad_sch');
const BOARD = fixture('test_board.kicad_pcb');
const BOARD_DRC_ERROR = fixture('test_board_drc_error.kicad_pcb');

const scratchRoot = isolateScratchRoot();
let adapter: RunningAdapter;
let missing: RunningAdapter;
let bridge: McpBridgeClient;

beforeAll(async () => {
  adapter = await startInProcess(kicadAdapter());
  missing = await startInProcess(kicadAdapter({ executable: '/nonexistent/bin/kicad-cli' }));
  bridge = new McpBridgeClient({ adapters: new Map([['kicad', adapter.url]]) });
});

afterAll(async () => {
  await bridge?.close();
  await adapter?.close();
  await missing?.close();
});

/** The failure of a call that must fail. */
async function failure(toolId: string, params: Record<string, unknown>, client = bridge): Promise<McpToolError> {
  const error = await client.invoke(toolId, params).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpToolError);
  return error as McpToolError;
}
const codeOf = (error: McpToolError) => (error.details.adapterError as any).error.code;

describe('kicad.run_erc', () => {
  it('finds exactly the deliberate error: the unconnected cathode of D2, at its pin', async () => {
    const result = (await bridge.invoke('kicad.run_erc', { schematic: LED_ERC_ERROR })) as any;
    // D2 sits at (88.9, 69.85) mm; its cathode pin ends 3.81 mm below the symbol origin (the library's pin is at
    // y = -3.81 with y up, the sheet's y grows downwards): (88.9, 73.66) mm. The wire from there to GND is missing.
    expect(result.violations).toEqual([
      {
        sheet: '/',
        severity: 'error',
        type: 'pin_not_connected',
        description: 'Pin not connected',
        items: [
          {
            description: 'Symbol D2 Pin 1 [K, Passive, Line]',
            reference: 'D2',
            pin: '1',
            pin_name: 'K',
            pin_type: 'Passive',
            label: null,
            position_mm: { x: 88.9, y: 73.66 },
            uuid: '8b1f3c2a-4d5e-4f60-8a71-000000000145',
          },
        ],
      },
    ]);
    expect(result).toMatchObject({
      passed: false,
      counts: { error: 1, warning: 0, exclusion: 0, total: 1 },
      counts_by_type: { pin_not_connected: 1 },
      sheets: ['/'],
      kicad_version: expect.stringMatching(/^9\./),
      warnings: [],
    });
    // 7 symbols, each with a "library not configured" symbol check and footprint check: environment noise, left out.
    expect(result.library_checks_skipped).toBe(14);
    expect(result.run_time_seconds).toBeGreaterThan(0);
  });

  it('passes the clean variant, and reports the library checks only when asked', async () => {
    const clean = (await bridge.invoke('kicad.run_erc', { schematic: LED })) as any;
    expect(clean).toMatchObject({
      passed: true,
      violations: [],
      counts: { error: 0, warning: 0, exclusion: 0, total: 0 },
      counts_by_type: {},
    });

    const withLibraries = (await bridge.invoke('kicad.run_erc', { schematic: LED, library_checks: true })) as any;
    expect(withLibraries.passed).toBe(true); // warnings only
    expect(withLibraries.counts_by_type).toEqual({ footprint_link_issues: 7, lib_symbol_issues: 7 });
    expect(withLibraries.library_checks_skipped).toBe(0);
    const j1 = withLibraries.violations.find((v: any) => v.type === 'lib_symbol_issues' && v.items[0].reference === 'J1');
    expect(j1.items[0].position_mm).toEqual({ x: 43.18, y: 60.96 }); // the symbol's own (at 43.18 60.96)
  });

  it('checks every sheet of a hierarchical schematic and names the sheet of a violation', async () => {
    const result = (await bridge.invoke('kicad.run_erc', {
      schematic: PULLUPS_ROOT,
      sheets: [{ name: 'pullups.kicad_sch', content: PULLUPS_SHEET }],
    })) as any;
    expect(result.sheets).toEqual(['/', '/Pullups/']);
    // R12 at (76.2, 50.8): pin 2 ends 3.81 mm below, at (76.2, 54.61); nothing is wired to it.
    expect(result.violations).toEqual([
      expect.objectContaining({
        sheet: '/Pullups/',
        type: 'pin_not_connected',
        severity: 'error',
        items: [
          expect.objectContaining({ reference: 'R12', pin: '2', pin_name: null, pin_type: 'Passive', position_mm: { x: 76.2, y: 54.61 } }),
        ],
      }),
    ]);
  });

  it('applies the project file (a rule set to ignore is not reported)', async () => {
    const project = JSON.stringify({
      erc: { rule_severities: { pin_not_connected: 'ignore' } },
      meta: { filename: 'x.kicad_pro', version: 1 },
    });
    const result = (await bridge.invoke('kicad.run_erc', { schematic: LED_ERC_ERROR, project })) as any;
    expect(result).toMatchObject({ passed: true, violations: [] });
  });

  it('refuses sheet files that escape the scratch directory or are not given', async () => {
    const escape = await failure('kicad.run_erc', {
      schematic: PULLUPS_ROOT,
      sheets: [{ name: '../pullups.kicad_sch', content: PULLUPS_SHEET }],
    });
    expect(escape.message).toContain("'..' and would escape the call's scratch directory");
    expect(codeOf(escape)).toBe('INPUT_REJECTED');

    const absolute = await failure('kicad.run_erc', { schematic: PULLUPS_ROOT.replace('"pullups.kicad_sch"', '"/etc/pullups.kicad_sch"') });
    expect(absolute.message).toContain("'/etc/pullups.kicad_sch' is an absolute path");
    expect(codeOf(absolute)).toBe('INPUT_REJECTED');

    const notGiven = await failure('kicad.run_erc', { schematic: PULLUPS_ROOT });
    expect(notGiven.message).toContain("'schematic' refers to sheet file 'pullups.kicad_sch', which is not among 'sheets'");

    const notSchematic = await failure('kicad.run_erc', { schematic: BOARD });
    expect(notSchematic.message).toContain("'schematic' is not a KiCad schematic");
  });

  it("reports kicad-cli's own failure for a schematic it cannot load", async () => {
    const error = await failure('kicad.run_erc', { schematic: '(kicad_sch (version 20250114) (lib_symbols' });
    expect(codeOf(error)).toBe('PROGRAM_FAILED');
    expect(error.message).toContain('kicad-cli could not check the schematic (exit code 3): Failed to load schematic');
    expect((error.details.adapterError as any).error.diagnostics.exit_code).toBe(3);
  });
  it('kills kicad-cli at the time limit and removes the scratch directory', async () => {
    // An ERC run of this schematic takes about 0.3 s; 50 ms is not enough.
    const error = await failure('kicad.run_erc', { schematic: LED, timeout_seconds: 0.05 });
    expect(codeOf(error)).toBe('PROGRAM_TIMEOUT');
    expect(error.message).toMatch(/^Tool 'kicad.run_erc' failed: kicad-cli did not finish within [0-9.]+ s and was killed/);
    expect(await waitUntil(() => processesUnder(scratchRoot).length === 0, 3_000)).toBe(true);
    expect(await waitUntil(() => readdirSync(scratchRoot).length === 0, 3_000)).toBe(true);
  });
});

describe('kicad.run_drc', () => {
  it('finds the deliberate clearance violation and the unrouted GND connection', async () => {
    const result = (await bridge.invoke('kicad.run_drc', { board: BOARD_DRC_ERROR })) as any;
    // TP1 (a 1.5 mm round pad) sits at (15, 11): its edge is at y = 11 - 0.75 = 10.25 mm. The SIG_B track runs along
    // y = 10 mm, 0.25 mm wide: its edge is at 10.125 mm. Copper gap 10.25 - 10.125 = 0.125 mm < 0.2 mm (KiCad's default).
    expect(result.violations).toEqual([
      {
        severity: 'error',
        type: 'clearance',
        description: expect.stringContaining('clearance 0.2000 mm; actual 0.1250 mm'),
        limit_mm: 0.2,
        actual_mm: 0.125,
        items: [
          {
            description: 'Pad 1 [GND] of TP1 on F.Cu',
            reference: 'TP1',
            pad: '1',
            net: 'GND',
            layer: 'F.Cu',
            position_mm: { x: 15, y: 11 },
            uuid: '3c9d5e7a-1b2f-4a60-9c8d-000000000021',
          },
          {
            description: 'Track [SIG_B] on F.Cu, length 10.0000 mm',
            reference: null,
            pad: null,
            net: 'SIG_B',
            layer: 'F.Cu',
            position_mm: { x: 10.825, y: 10 },
            uuid: '3c9d5e7a-1b2f-4a60-9c8d-000000000032',
          },
        ],
      },
    ]);
    // TP1 and TP2 are both on GND, and the track between them is missing.
    expect(result.unconnected_items).toEqual([
      expect.objectContaining({
        type: 'unconnected_items',
        severity: 'error',
        items: [
          expect.objectContaining({ reference: 'TP1', pad: '1', net: 'GND', position_mm: { x: 15, y: 11 } }),
          expect.objectContaining({ reference: 'TP2', pad: '1', net: 'GND', position_mm: { x: 18, y: 15 } }),
        ],
      }),
    ]);
    expect(result).toMatchObject({
      passed: false,
      parity_checked: false,
      schematic_parity: [],
      counts: { error: 2, warning: 0, exclusion: 0, violations: 1, unconnected_items: 1, schematic_parity: 0 },
      counts_by_type: { clearance: 1, unconnected_items: 1 },
      library_checks_skipped: 4,
    });
  });

  it('passes the clean board', async () => {
    const result = (await bridge.invoke('kicad.run_drc', { board: BOARD })) as any;
    expect(result).toMatchObject({ passed: true, violations: [], unconnected_items: [], counts: { error: 0, warning: 0 } });
  });

  it('applies custom design rules (.kicad_dru) from the project', async () => {
    // With a 3 mm clearance everywhere, the closest copper of the clean board is too close: R1's own pads are
    // 1.65 - 0.8 = 0.85 mm apart (different nets).
    const custom_rules = '(version 1)\n(rule "wide_clearance"\n  (constraint clearance (min 3mm)))\n';
    const result = (await bridge.invoke('kicad.run_drc', { board: BOARD, custom_rules })) as any;
    expect(result.passed).toBe(false);
    expect(result.violations.every((v: any) => v.type === 'clearance' && v.limit_mm === 3)).toBe(true);
    expect(Math.min(...result.violations.map((v: any) => v.actual_mm))).toBeCloseTo(0.85, 4);
  });

  it('checks parity with a schematic when one is given', async () => {
    const result = (await bridge.invoke('kicad.run_drc', { board: BOARD, schematic: LED })) as any;
    expect(result.parity_checked).toBe(true);
    const missingFootprints = result.schematic_parity.filter((v: any) => v.type === 'missing_footprint').map((v: any) => v.description);
    expect(missingFootprints).toEqual(expect.arrayContaining(['Missing footprint C1 (100n)', 'Missing footprint J1 (Conn_01x02)']));
    expect(result.schematic_parity.some((v: any) => v.type === 'extra_footprint' && v.items[0].reference === 'TP1')).toBe(true);
    expect(result.counts.schematic_parity).toBe(result.schematic_parity.length);
  });

  it('refuses input that is not a board, and a board kicad-cli cannot load', async () => {
    expect((await failure('kicad.run_drc', { board: LED })).message).toContain("'board' is not a KiCad board");
    const broken = await failure('kicad.run_drc', { board: '(kicad_pcb (version 20241229) (net 0' });
    expect(codeOf(broken)).toBe('PROGRAM_FAILED');
    expect(broken.message).toContain('Failed to load board');
    const rules = await failure('kicad.run_drc', { board: BOARD, custom_rules: 'rule x' });
    expect(rules.message).toContain("'custom_rules' must be the text of a .kicad_dru file");
  });
});

describe('kicad.export_bom', () => {
  it('groups the parts of the LED indicator by value and footprint', async () => {
    const result = (await bridge.invoke('kicad.export_bom', { schematic: LED })) as any;
    const row = (references: string[], value: string, footprint: string, libraryPart: string, description: string, fields = {}) => ({
      references,
      value,
      footprint,
      quantity: references.length,
      dnp: false,
      description,
      datasheet: null,
      library_part: libraryPart,
      fields,
      mixed_fields: [],
    });
    expect(result.rows).toEqual([
      row(['C1'], '100n', 'Capacitor_SMD:C_0603_1608Metric', 'Device:C', 'Unpolarized capacitor'),
      row(['D1'], 'LED_red', 'LED_SMD:LED_0603_1608Metric', 'Device:LED', 'Light emitting diode, anode on top', { MPN: '150060RS75000' }),
      row(['D2'], 'LED_green', 'LED_SMD:LED_0603_1608Metric', 'Device:LED', 'Light emitting diode, anode on top', { MPN: '150060GS75000' }),
      row(
        ['J1'],
        'Conn_01x02',
        'Connector_PinHeader_2.54mm:PinHeader_1x02_P2.54mm_Vertical',
        'Connector_Generic:Conn_01x02',
        'Generic connector, single row, 01x02',
      ),
      row(['R1', 'R2'], '470', 'Resistor_SMD:R_0603_1608Metric', 'Device:R', 'Resistor'),
      row(['R3'], '10k', 'Resistor_SMD:R_0603_1608Metric', 'Device:R', 'Resistor'),
    ]);
    expect(result.totals).toEqual({ rows: 6, parts: 7, dnp_parts: 0, excluded_from_bom: 0, excluded_dnp: 0 });
    expect(result.group_by).toEqual(['Value', 'Footprint']);
    expect(result.field_names).toEqual(['MPN']);
  });

  it('groups by other fields on request, and marks what differs within a row', async () => {
    const byFootprint = (await bridge.invoke('kicad.export_bom', { schematic: LED, group_by: ['footprint'] })) as any;
    const resistors = byFootprint.rows.find((r: any) => r.footprint === 'Resistor_SMD:R_0603_1608Metric');
    expect(resistors).toMatchObject({ references: ['R1', 'R2', 'R3'], value: '470, 10k', quantity: 3, mixed_fields: ['Value'] });
    const leds = byFootprint.rows.find((r: any) => r.footprint === 'LED_SMD:LED_0603_1608Metric');
    expect(leds).toMatchObject({ references: ['D1', 'D2'], fields: {}, mixed_fields: ['Value', 'MPN'] });

    const perPart = (await bridge.invoke('kicad.export_bom', { schematic: LED, group_by: [] })) as any;
    expect(perPart.rows.map((r: any) => r.references)).toEqual([['C1'], ['D1'], ['D2'], ['J1'], ['R1'], ['R2'], ['R3']]);

    const byReference = await failure('kicad.export_bom', { schematic: LED, group_by: ['Reference'] });
    expect(byReference.message).toContain("group_by cannot contain 'Reference'");
  });

  it('lists DNP parts apart and leaves out parts excluded from the BOM', async () => {
    const schematic = LED.replace(
      '(lib_id "Device:C") (at 50.8 63.5 0) (unit 1) (exclude_from_sim no) (in_bom yes) (on_board yes) (dnp no)',
      '(lib_id "Device:C") (at 50.8 63.5 0) (unit 1) (exclude_from_sim no) (in_bom yes) (on_board yes) (dnp yes)',
    ).replace(
      '(lib_id "Device:R") (at 63.5 63.5 0) (unit 1) (exclude_from_sim no) (in_bom yes)',
      '(lib_id "Device:R") (at 63.5 63.5 0) (unit 1) (exclude_from_sim no) (in_bom no)',
    );
    const result = (await bridge.invoke('kicad.export_bom', { schematic })) as any;
    expect(result.rows.find((r: any) => r.references[0] === 'C1')).toMatchObject({ dnp: true, quantity: 1 });
    expect(result.rows.some((r: any) => r.references.includes('R3'))).toBe(false);
    expect(result.totals).toEqual({ rows: 5, parts: 6, dnp_parts: 1, excluded_from_bom: 1, excluded_dnp: 0 });

    const fitted = (await bridge.invoke('kicad.export_bom', { schematic, exclude_dnp: true, include_excluded_from_bom: true })) as any;
    expect(fitted.rows.map((r: any) => r.references.join(','))).toEqual(['D1', 'D2', 'J1', 'R1,R2', 'R3']);
    expect(fitted.totals).toEqual({ rows: 5, parts: 6, dnp_parts: 0, excluded_from_bom: 0, excluded_dnp: 1 });
  });

  it('collects the parts of every sheet', async () => {
    const result = (await bridge.invoke('kicad.export_bom', {
      schematic: PULLUPS_ROOT,
      sheets: [{ name: 'pullups.kicad_sch', content: PULLUPS_SHEET }],
    })) as any;
    expect(result.rows).toEqual([expect.objectContaining({ references: ['R10', 'R11', 'R12'], value: '10k', quantity: 3 })]);
  });
});

describe('kicad adapter without kicad-cli', () => {
  it('starts, reports its tools unavailable and never fakes a result (in process)', async () => {
    const health = await (await fetch(`${missing.url.replace(/\/mcp$/, '')}/healthz`)).json();
    expect(health).toMatchObject({
      status: 'degraded',
      programs: [{ name: 'kicad-cli', debianPackage: 'kicad', found: false, version: null }],
      tools: [
        { name: 'run_erc', capability: 'electrical_rules_check', available: false },
        { name: 'run_drc', capability: 'design_rules_check', available: false },
        { name: 'export_bom', capability: 'bom_export', available: false },
      ],
    });
    const client = new McpBridgeClient({ adapters: new Map([['kicad', missing.url]]) });
    try {
      expect(await client.isAvailable('kicad.run_erc')).toBe(false);
      const error = await failure('kicad.run_erc', { schematic: LED }, client);
      expect(codeOf(error)).toBe('PROGRAM_NOT_INSTALLED');
      expect(error.message).toContain("kicad-cli is not installed (Debian package 'kicad')");
    } finally {
      await client.close();
    }
  });

  it('honours KICAD_CLI_BIN in the adapter process', async () => {
    const port = await freePort();
    const process = await startAdapterProcess('kicad', port, { KICAD_CLI_BIN: '/nonexistent/bin/kicad-cli' });
    const client = new McpBridgeClient({ adapters: new Map([['kicad', process.url]]) });
    try {
      const tools = await client.listTools();
      expect(tools.map((tool) => [tool.toolId, tool.capability, tool.available])).toEqual([
        ['kicad.export_bom', 'bom_export', false],
        ['kicad.run_drc', 'design_rules_check', false],
        ['kicad.run_erc', 'electrical_rules_check', false],
      ]);
      expect(tools[0].unavailableReason).toContain('kicad-cli is not installed');
      const error = await failure('kicad.export_bom', { schematic: LED }, client);
      expect(codeOf(error)).toBe('PROGRAM_NOT_INSTALLED');
    } finally {
      await client.close();
      await process.kill();
    }
  });
});

describe('electronics skills on the real adapter', () => {
  const loader = new SkillPackageLoader({ cacheDir: false });
  const silent: SkillLogger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
  const contextFor = (client: McpBridgeClient): SkillContext => ({
    mcp: client,
    // The electronics skills use no work products: an empty twin.
    twin: createFakeTwin(),
    logger: silent,
    executionId: 'kicad-int-spec',
    sessionId: null,
    branch: 'main',
    signal: new AbortController().signal,
  });
  const packageDir = (name: string) => new URL(`../../skills/electronics/${name}/`, import.meta.url).pathname;

  async function load(
    name: string,
  ): Promise<{ Handler: SkillHandlerClass; examples: { input: Record<string, unknown>; output?: unknown }[] }> {
    const loaded = await loader.load(packageDir(name));
    expect(loaded.issues.filter((issue) => issue.severity === 'error')).toEqual([]);
    expect(loaded.valid).toBe(true);
    expect(loaded.definition).toMatchObject({
      version: expect.stringMatching(/^0\.1\.\d+$/), // export_bom is 0.1.1 (its SKILL.md's front matter fixed)
      phase: 1,
      agent: 'electronics',
      idempotent: true,
      tools_required: [{ tool_id: `kicad.${name}` }],
    });
    return { Handler: await loader.loadHandlerClass(packageDir(name), loaded.definition!), examples: loaded.definition!.examples };
  }

  it.each(['run_erc', 'run_drc', 'export_bom'])(
    '%s: the loader accepts the package and its declared examples give the declared outputs',
    async (name) => {
      const { Handler, examples } = await load(name);
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples) {
        // As the executor runs a skill: validate the input, check preconditions, execute, validate the output.
        const input = (Handler.inputSchema as any).parse(example.input);
        const handler = new Handler(contextFor(bridge));
        expect(await handler.validatePreconditions(input)).toEqual([]);
        const output = JSON.parse(JSON.stringify((Handler.outputSchema as any).parse(await handler.execute(input))));
        expect(example.output).toBeDefined();
        expect(output).toEqual(example.output);
      }
    },
  );

  it('fails the preconditions when kicad-cli is missing on the adapter', async () => {
    const client = new McpBridgeClient({ adapters: new Map([['kicad', missing.url]]) });
    try {
      const { Handler, examples } = await load('run_erc');
      const handler = new Handler(contextFor(client));
      expect(await handler.validatePreconditions((Handler.inputSchema as any).parse(examples[0].input))).toEqual([
        "tool 'kicad.run_erc' is not available: the kicad adapter is not reachable or kicad-cli is not installed there",
      ]);
    } finally {
      await client.close();
    }
  });
});
