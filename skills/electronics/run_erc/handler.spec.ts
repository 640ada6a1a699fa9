import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { McpToolError, SkillExecutionError, createTestContext, findUndescribedProperties, toJsonSchema } from '@skill-registry/sdk';
import type { FakeTool } from '@skill-registry/sdk';
import { RunErcHandler } from './handler.js';
import { RunErcInput, RunErcOutput } from './schema.js';

const definition = JSON.parse(readFileSync(new URL('./definition.json', import.meta.url), 'utf8')) as {
  examples: { description: string; input: Record<string, unknown>; output: unknown }[];
};

const SCHEMATIC = '(kicad_sch (version 20250114) (generator "eeschema") (lib_symbols))';

/** A kicad.run_erc item for a symbol pin. */
const pinItem = (reference: string, pin: string, pinName: string | null, x: number, y: number) => ({
  description: `Symbol ${reference} Pin ${pin} [${pinName ? `${pinName}, ` : ''}Passive, Line]`,
  reference,
  pin,
  pin_name: pinName,
  pin_type: 'Passive',
  label: null,
  position_mm: { x, y },
  uuid: 'u',
});

/** What kicad.run_erc returns, with the violations given. */
function ercResult(violations: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  const counts = { error: 0, warning: 0, exclusion: 0, total: violations.length };
  for (const v of violations) counts[v.severity as 'error']++;
  return {
    passed: counts.error === 0,
    violations,
    counts,
    counts_by_type: {},
    sheets: ['/'],
    kicad_version: '9.0.8',
    run_time_seconds: 0.7,
    library_checks_skipped: 14,
    warnings: [],
    ...extra,
  };
}

/** kicad.run_erc on test/fixtures/kicad/led_indicator_erc_error.kicad_sch (the real result, as the adapter gives it). */
const LED_ERROR_RESULT = ercResult([
  {
    sheet: '/',
    severity: 'error',
    type: 'pin_not_connected',
    description: 'Pin not connected',
    items: [pinItem('D2', '1', 'K', 88.9, 73.66)],
  },
]);

const danglingLabel = {
  sheet: '/Power/',
  severity: 'warning',
  type: 'label_dangling',
  description: 'Label not connected to anything',
  items: [
    {
      description: "Label 'EN'",
      reference: null,
      pin: null,
      pin_name: null,
      pin_type: null,
      label: 'EN',
      position_mm: { x: 25.4, y: 30.48 },
      uuid: 'l',
    },
  ],
};
const offGrid = {
  sheet: '/',
  severity: 'warning',
  type: 'endpoint_off_grid',
  description: 'Symbol pin or wire end off connection grid',
  items: [pinItem('R7', '2', null, 10.16, 20.3)],
};
const excluded = { ...offGrid, severity: 'exclusion', items: [pinItem('R8', '1', null, 12.7, 20.32)] };

async function run(tool: FakeTool, raw: Record<string, unknown> = { schematic: SCHEMATIC }) {
  const context = createTestContext({ tools: { 'kicad.run_erc': tool } });
  const handler = new RunErcHandler(context);
  const input = RunErcInput.parse(raw);
  return { context, handler, input, output: async () => RunErcOutput.parse(await handler.execute(input)) };
}

describe('run_erc', () => {
  it('fails on an ERC error and says where it is', async () => {
    const { output, context } = await run(LED_ERROR_RESULT);
    const out = await output();
    expect(out).toMatchObject({
      passed: false,
      error_count: 1,
      warning_count: 0,
      library_checks_skipped: 14,
      counts_by_type: { pin_not_connected: 1 },
    });
    expect(out.findings[0]).toMatchObject({
      severity: 'error',
      type: 'pin_not_connected',
      sheet: '/',
      message: 'Pin not connected: D2 pin 1 (K) at (88.9, 73.66) mm on sheet /',
      location: { x_mm: 88.9, y_mm: 73.66 },
    });
    expect(context.toolCalls).toEqual([{ toolId: 'kicad.run_erc', params: { schematic: SCHEMATIC, timeout_seconds: 90 } }]);
  });

  it('passes with warnings only, unless the policy says otherwise', async () => {
    const result = ercResult([danglingLabel, offGrid, excluded]);
    const plain = await (await run(result)).output();
    expect(plain).toMatchObject({ passed: true, error_count: 0, warning_count: 2, excluded_count: 1 });
    expect(plain.summary).toBe('ERC PASS: 0 error(s), 2 warning(s), 1 excluded in 1 sheet (label_dangling ×1, endpoint_off_grid ×2)');
    expect(plain.findings.map((f) => f.severity)).toEqual(['warning', 'warning', 'excluded']);

    const strict = await (await run(result, { schematic: SCHEMATIC, policy: { fail_on_warnings: true } })).output();
    expect(strict.passed).toBe(false);

    const elevated = await (
      await run(result, { schematic: SCHEMATIC, policy: { treat_as_error: ['label_dangling'], ignore: ['endpoint_off_grid'] } })
    ).output();
    expect(elevated).toMatchObject({ passed: false, error_count: 1, warning_count: 0, excluded_count: 0, ignored_count: 2 });
    expect(elevated.findings).toEqual([
      expect.objectContaining({
        severity: 'error',
        kicad_severity: 'warning',
        type: 'label_dangling',
        sheet: '/Power/',
        location: { x_mm: 25.4, y_mm: 30.48 },
      }),
    ]);
    expect(elevated.findings[0].message).toBe("Label not connected to anything: Label 'EN' at (25.4, 30.48) mm on sheet /Power/");
    expect(elevated.summary).toBe('ERC FAIL: 1 error(s), 0 warning(s), 0 excluded in 1 sheet (label_dangling ×1); 2 ignored by policy');
  });

  it('passes sub-sheets and the project file to the tool', async () => {
    const sheets = [{ name: 'power.kicad_sch', content: '(kicad_sch (version 20250114))' }];
    const root = `${SCHEMATIC.slice(0, -1)} (sheet (property "Sheetfile" "power.kicad_sch")))`;
    const { output, context } = await run(ercResult([]), { schematic: root, sheets, project: '{}' });
    expect((await output()).passed).toBe(true);
    expect(context.toolCalls[0].params).toEqual({ schematic: root, sheets, project: '{}', timeout_seconds: 90 });
  });

  it('fails the preconditions when the tool is unavailable or the input cannot be checked', async () => {
    const context = createTestContext({ tools: { 'kicad.run_erc': LED_ERROR_RESULT }, unavailable: ['kicad.run_erc'] });
    const handler = new RunErcHandler(context);
    const input = RunErcInput.parse({
      schematic: `${SCHEMATIC.slice(0, -1)} (sheet (property "Sheetfile" "power.kicad_sch")))`,
      policy: { ignore: ['pin_not_driven'], treat_as_error: ['pin_not_driven'] },
    });
    expect(await handler.validatePreconditions(input)).toEqual([
      "tool 'kicad.run_erc' is not available: the kicad adapter is not reachable or kicad-cli is not installed there",
      "schematic refers to sheet file 'power.kicad_sch', which is not among sheets; give its content too",
      "policy lists rule 'pin_not_driven' both in ignore and in treat_as_error",
    ]);
    const notSchematic = RunErcInput.parse({ schematic: 'EESchema Schematic File Version 4' });
    expect(
      await new RunErcHandler(createTestContext({ tools: { 'kicad.run_erc': LED_ERROR_RESULT } })).validatePreconditions(notSchematic),
    ).toEqual([
      "schematic is not the text of a KiCad schematic (.kicad_sch, starting with '(kicad_sch'); legacy .sch files are not supported",
    ]);
    await expect(handler.execute(input)).rejects.toBeInstanceOf(SkillExecutionError);
    expect(context.toolCalls).toEqual([]);
  });

  it('lets a tool error through as it is', async () => {
    const { handler, input } = await run(() => {
      throw new McpToolError('kicad.run_erc', 'kicad-cli could not check the schematic (exit code 3): Failed to load schematic');
    });
    const error = (await handler.execute(input).catch((e: unknown) => e)) as McpToolError;
    expect(error).toBeInstanceOf(McpToolError);
    expect(error.code).toBe('TOOL_ERROR');
    expect(error.message).toContain('Failed to load schematic');
  });

  it('refuses a tool result it does not understand', async () => {
    const { handler, input } = await run({ violations: 'none' });
    const error = (await handler.execute(input).catch((e: unknown) => e)) as SkillExecutionError;
    expect(error).toBeInstanceOf(SkillExecutionError);
    expect(error.code).toBe('HANDLER_ERROR');
    expect(error.message).toMatch(/^kicad\.run_erc returned a result this skill cannot read: at violations: /);

    const inconsistent = await run({ ...LED_ERROR_RESULT, counts: { ...LED_ERROR_RESULT.counts, total: 3 } });
    await expect(inconsistent.handler.execute(inconsistent.input)).rejects.toThrow('counts.total is 3 but 1 violations are listed');
  });

  it('rejects bad rule ids at the schema', () => {
    expect(RunErcInput.safeParse({ schematic: SCHEMATIC, policy: { ignore: ['Pin Not Connected'] } }).success).toBe(false);
    expect(RunErcInput.safeParse({ schematic: SCHEMATIC, extra: 1 }).success).toBe(false);
  });

  it('has JSON Schemas with every property described', () => {
    expect(findUndescribedProperties(toJsonSchema(RunErcInput, 'input'))).toEqual([]);
    expect(findUndescribedProperties(toJsonSchema(RunErcOutput, 'output'))).toEqual([]);
  });

  it('gives the declared output of the first example for the result kicad.run_erc gives on it', async () => {
    const [example] = definition.examples;
    expect(RunErcOutput.safeParse(example.output).success).toBe(true);
    const { output } = await run(LED_ERROR_RESULT, example.input);
    expect(await output()).toEqual(example.output);
  });
});
