import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import {
  McpTimeoutError,
  McpToolError,
  SkillExecutionError,
  createTestContext,
  findUndescribedProperties,
  toJsonSchema,
} from '@skill-registry/sdk';
import type { FakeTool } from '@skill-registry/sdk';
import { RunDrcHandler } from './handler.js';
import { RunDrcInput, RunDrcOutput } from './schema.js';

const definition = JSON.parse(readFileSync(new URL('./definition.json', import.meta.url), 'utf8')) as {
  examples: { description: string; input: Record<string, unknown>; output: unknown }[];
};

const BOARD = '(kicad_pcb (version 20241229) (generator "pcbnew"))';
const SCHEMATIC = '(kicad_sch (version 20250114) (generator "eeschema") (lib_symbols))';

const pad = (reference: string, number: string, net: string, x: number, y: number) => ({
  description: `Pad ${number} [${net}] of ${reference} on F.Cu`,
  reference,
  pad: number,
  net,
  layer: 'F.Cu',
  position_mm: { x, y },
  uuid: 'p',
});
const track = (net: string, x: number, y: number) => ({
  description: `Track [${net}] on F.Cu, length 10.0000 mm`,
  reference: null,
  pad: null,
  net,
  layer: 'F.Cu',
  position_mm: { x, y },
  uuid: 't',
});
const violation = (
  type: string,
  severity: string,
  description: string,
  items: unknown[],
  limit: number | null = null,
  actual: number | null = null,
) => ({
  severity,
  type,
  description,
  limit_mm: limit,
  actual_mm: actual,
  items,
});

/** What kicad.run_drc returns. */
function drcResult(lists: { violations?: unknown[]; unconnected?: unknown[]; parity?: unknown[] } = {}, parityChecked = false) {
  return {
    passed: false,
    violations: lists.violations ?? [],
    unconnected_items: lists.unconnected ?? [],
    schematic_parity: lists.parity ?? [],
    parity_checked: parityChecked,
    counts: {},
    counts_by_type: {},
    kicad_version: '9.0.8',
    run_time_seconds: 0.8,
    library_checks_skipped: 4,
    warnings: [],
  };
}

const CLEARANCE = violation(
  'clearance',
  'error',
  'Clearance violation ( clearance 0.2000 mm; actual 0.1250 mm)',
  [pad('TP1', '1', 'GND', 15, 11), track('SIG_B', 10.825, 10)],
  0.2,
  0.125,
);
const UNROUTED = violation('unconnected_items', 'error', 'Missing connection between items', [
  pad('TP1', '1', 'GND', 15, 11),
  pad('TP2', '1', 'GND', 18, 15),
]);
/** kicad.run_drc on test/fixtures/kicad/test_board_drc_error.kicad_pcb (the real result, as the adapter gives it). */
const BOARD_ERROR_RESULT = drcResult({ violations: [CLEARANCE], unconnected: [UNROUTED] });

const SILK = violation('silk_over_copper', 'warning', 'Silkscreen clipped by solder mask', [
  { ...track('', 1, 2), description: 'Text on F.Silkscreen', net: null },
]);

async function run(tool: FakeTool, raw: Record<string, unknown> = { board: BOARD }) {
  const context = createTestContext({ tools: { 'kicad.run_drc': tool } });
  const handler = new RunDrcHandler(context);
  const input = RunDrcInput.parse(raw);
  return { context, handler, input, output: async () => RunDrcOutput.parse(await handler.execute(input)) };
}

describe('run_drc', () => {
  it('fails on a clearance violation and an unrouted connection, with the numbers', async () => {
    const { output, context } = await run(BOARD_ERROR_RESULT);
    const out = await output();
    expect(out).toMatchObject({
      passed: false,
      error_count: 2,
      warning_count: 0,
      unrouted_count: 1,
      parity_issue_count: 0,
      parity_checked: false,
    });
    expect(out.findings.map((f) => [f.category, f.severity, f.type, f.limit_mm, f.actual_mm])).toEqual([
      ['rule', 'error', 'clearance', 0.2, 0.125],
      ['unrouted', 'error', 'unconnected_items', null, null],
    ]);
    expect(out.findings[1].message).toBe(
      'Missing connection between items: Pad 1 [GND] of TP1 on F.Cu at (15, 11) mm; Pad 1 [GND] of TP2 on F.Cu at (18, 15) mm',
    );
    expect(context.toolCalls).toEqual([{ toolId: 'kicad.run_drc', params: { board: BOARD, timeout_seconds: 90 } }]);
  });

  it('applies the policy: unrouted allowed, warnings elevated or ignored', async () => {
    const result = drcResult({ violations: [SILK], unconnected: [UNROUTED] });
    const wip = await (await run(result, { board: BOARD, policy: { allow_unrouted: true } })).output();
    expect(wip).toMatchObject({ passed: true, error_count: 0, warning_count: 2, unrouted_count: 1 });
    expect(wip.summary).toBe('DRC PASS: 0 error(s), 2 warning(s), 0 excluded (1 rule violation(s), 1 unrouted connection(s))');

    const strict = await (await run(result, { board: BOARD, policy: { allow_unrouted: true, fail_on_warnings: true } })).output();
    expect(strict.passed).toBe(false);

    const silk = await (
      await run(result, { board: BOARD, policy: { treat_as_error: ['silk_over_copper'], ignore: ['unconnected_items'] } })
    ).output();
    expect(silk).toMatchObject({ passed: false, error_count: 1, warning_count: 0, ignored_count: 1, unrouted_count: 0 });
    expect(silk.findings[0]).toMatchObject({ severity: 'error', kicad_severity: 'warning', type: 'silk_over_copper' });
  });

  it('checks parity when a schematic is given, and lists excluded findings last', async () => {
    const missing = violation('missing_footprint', 'warning', 'Missing footprint C1 (100n)', []);
    const excluded = { ...CLEARANCE, severity: 'exclusion' };
    const { output, context } = await run(drcResult({ violations: [excluded], parity: [missing] }, true), {
      board: BOARD,
      schematic: SCHEMATIC,
      project: '{}',
    });
    const out = await output();
    expect(out).toMatchObject({ passed: true, parity_checked: true, parity_issue_count: 1, excluded_count: 1 });
    expect(out.findings.map((f) => [f.category, f.severity])).toEqual([
      ['parity', 'warning'],
      ['rule', 'excluded'],
    ]);
    expect(out.findings[0]).toMatchObject({ message: 'Missing footprint C1 (100n): no item given', location: null });
    expect(out.summary).toBe(
      'DRC PASS: 0 error(s), 1 warning(s), 1 excluded (1 rule violation(s), 1 parity issue(s)); checked against the schematic',
    );
    expect(context.toolCalls[0].params).toEqual({ board: BOARD, project: '{}', schematic: SCHEMATIC, timeout_seconds: 90 });
  });

  it('fails the preconditions when the tool is unavailable or the input cannot be checked', async () => {
    const context = createTestContext({ tools: { 'kicad.run_drc': BOARD_ERROR_RESULT }, unavailable: ['kicad.run_drc'] });
    const handler = new RunDrcHandler(context);
    const input = RunDrcInput.parse({
      board: 'PCBNEW-BOARD Version 1',
      custom_rules: '(rule "x")',
      sheets: [{ name: 'a.kicad_sch', content: SCHEMATIC }],
      policy: { ignore: ['clearance'], treat_as_error: ['clearance'] },
    });
    expect(await handler.validatePreconditions(input)).toEqual([
      "tool 'kicad.run_drc' is not available: the kicad adapter is not reachable or kicad-cli is not installed there",
      "board is not the text of a KiCad board (.kicad_pcb, starting with '(kicad_pcb'); legacy .brd files are not supported",
      "custom_rules is not the text of a .kicad_dru file (it starts with '(version 1)')",
      'sheets are given without the schematic they belong to',
      "policy lists rule 'clearance' both in ignore and in treat_as_error",
    ]);
    const hierarchical = RunDrcInput.parse({
      board: BOARD,
      schematic: `${SCHEMATIC.slice(0, -1)} (sheet (property "Sheetfile" "io.kicad_sch")))`,
    });
    expect(await new RunDrcHandler(createTestContext({ tools: { 'kicad.run_drc': {} } })).validatePreconditions(hierarchical)).toEqual([
      "schematic refers to sheet file 'io.kicad_sch', which is not among sheets; give its content too",
    ]);
    await expect(handler.execute(input)).rejects.toBeInstanceOf(SkillExecutionError);
    expect(context.toolCalls).toEqual([]);
  });

  it('lets tool errors and timeouts through as they are', async () => {
    const failed = await run(() => {
      throw new McpToolError('kicad.run_drc', 'kicad-cli could not check the board (exit code 3): Failed to load board');
    });
    await expect(failed.handler.execute(failed.input)).rejects.toThrow(McpToolError);
    const slow = await run(() => {
      throw new McpTimeoutError('kicad.run_drc', 100_000);
    });
    const error = (await slow.handler.execute(slow.input).catch((e: unknown) => e)) as McpTimeoutError;
    expect(error.code).toBe('TOOL_TIMEOUT');
  });

  it('refuses a tool result it does not understand', async () => {
    const { handler, input } = await run({ ...BOARD_ERROR_RESULT, unconnected_items: [{ severity: 'fatal' }] });
    const error = (await handler.execute(input).catch((e: unknown) => e)) as SkillExecutionError;
    expect(error).toBeInstanceOf(SkillExecutionError);
    expect(error.message).toMatch(/^kicad\.run_drc returned a result this skill cannot read: at unconnected_items\.0\.severity: /);

    const noParity = await run(drcResult(), { board: BOARD, schematic: SCHEMATIC });
    await expect(noParity.handler.execute(noParity.input)).rejects.toThrow('parity_checked is false although a schematic was given');
  });

  it('has JSON Schemas with every property described', () => {
    expect(findUndescribedProperties(toJsonSchema(RunDrcInput, 'input'))).toEqual([]);
    expect(findUndescribedProperties(toJsonSchema(RunDrcOutput, 'output'))).toEqual([]);
  });

  it('gives the declared output of the first example for the result kicad.run_drc gives on it', async () => {
    const [example] = definition.examples;
    expect(RunDrcOutput.safeParse(example.output).success).toBe(true);
    const { output } = await run(BOARD_ERROR_RESULT, example.input);
    expect(await output()).toEqual(example.output);
  });
});
