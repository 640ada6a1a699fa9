import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { SkillExecutionError, createTestContext, findUndescribedProperties, toJsonSchema } from '@skill-registry/sdk';
import { CheckMemoryBudgetHandler } from './handler.js';
import { CheckMemoryBudgetInput, CheckMemoryBudgetOutput } from './schema.js';

const definition = JSON.parse(readFileSync(new URL('./definition.json', import.meta.url), 'utf8')) as {
  examples: { description: string; input: unknown; output: unknown }[];
};

async function run(raw: unknown) {
  const input = CheckMemoryBudgetInput.parse(raw);
  const output = await new CheckMemoryBudgetHandler(createTestContext()).execute(input);
  return CheckMemoryBudgetOutput.parse(output);
}

const FLASH = { name: 'FLASH', origin: '0x08000000', length_bytes: 65536 };
const RAM = { name: 'RAM', origin: 0x20000000, length_bytes: 20480 };

/** A typical STM32 build: 64 KiB flash, 20 KiB RAM. */
const typical = {
  min_free_percent: 10,
  regions: [FLASH, RAM],
  sections: [
    { name: '.isr_vector', size_bytes: 256, region: 'FLASH' },
    { name: '.text', size_bytes: 49152, region: 'FLASH' },
    { name: '.rodata', size_bytes: 8192, region: 'FLASH' },
    { name: '.data', size_bytes: 1024, region: 'RAM', load_region: 'FLASH' },
    { name: '.bss', size_bytes: 2048, region: 'RAM' },
    { name: '.heap', size_bytes: 512, region: 'RAM' },
    { name: '.stack', size_bytes: 1024, region: 'RAM' },
  ],
};

describe('check_memory_budget', () => {
  it('computes used/free/percent per region and counts .data in both RAM and FLASH', async () => {
    const out = await run(typical);
    expect(out.passed).toBe(true);
    expect(out.findings).toEqual([]);
    const [flash, ram] = out.regions;
    // FLASH: 256 + 49152 + 8192 + 1024 (.data image) = 58624 of 65536
    expect(flash).toMatchObject({
      origin_hex: '0x08000000',
      used_bytes: 58624,
      free_bytes: 6912,
      used_percent: 89.45, // 89.453125
      free_percent: 10.55, // 10.546875
      required_free_percent: 10,
      required_free_bytes: 6554, // ceil(6553.6)
      headroom_bytes: 358,
      status: 'ok',
    });
    expect(flash.sections.find((s) => s.name === '.data')).toEqual({ name: '.data', size_bytes: 1024, placement: 'load' });
    // RAM: 1024 + 2048 + 512 + 1024 = 4608 of 20480 = 22.5 %
    expect(ram).toMatchObject({
      origin_hex: '0x20000000',
      used_bytes: 4608,
      free_bytes: 15872,
      used_percent: 22.5,
      free_percent: 77.5,
      status: 'ok',
    });
  });

  it('passes a region exactly at the margin and fails it one byte over', async () => {
    const region = { name: 'RAM', origin: 0, length_bytes: 1000 };
    const at = await run({ min_free_percent: 10, regions: [region], sections: [{ name: '.bss', size_bytes: 900, region: 'RAM' }] });
    expect(at.regions[0]).toMatchObject({ free_bytes: 100, required_free_bytes: 100, headroom_bytes: 0, status: 'ok' });
    expect(at.passed).toBe(true);

    const over = await run({ min_free_percent: 10, regions: [region], sections: [{ name: '.bss', size_bytes: 901, region: 'RAM' }] });
    expect(over.regions[0]).toMatchObject({ headroom_bytes: -1, status: 'below_margin' });
    expect(over.passed).toBe(false);
    expect(over.findings).toEqual([
      {
        severity: 'error',
        code: 'below_margin',
        region: 'RAM',
        section: null,
        message:
          'RAM has 99 bytes free (9.9 %), below the required 10 % margin (100 bytes): cut 1 bytes. Largest contributors: .bss 901 B.',
      },
    ]);
  });

  it('flags an overflowing region with its overflow and largest contributors', async () => {
    const out = await run({
      min_free_percent: 5,
      regions: [{ name: 'FLASH', origin: '0x0', length_bytes: 16384 }],
      sections: [
        { name: '.text', size_bytes: 15000, region: 'FLASH' },
        { name: '.rodata', size_bytes: 1200, region: 'FLASH' },
        { name: '.data', size_bytes: 400, region: 'FLASH', load_region: 'FLASH' },
        { name: '.ARM.exidx', size_bytes: 8, region: 'FLASH' },
      ],
    });
    expect(out.regions[0]).toMatchObject({
      used_bytes: 17008,
      free_bytes: -624,
      used_percent: 103.81,
      status: 'over_budget',
      required_free_bytes: 820,
    });
    expect(out.findings[0].message).toBe(
      'FLASH overflows by 624 bytes: 17008 of 16384 bytes used (103.81 %). Largest contributors: .text 15000 B, .rodata 1200 B, .data 400 B. Cut 1444 bytes to also restore the 5 % margin.',
    );
    expect(out.error_count).toBe(1);
  });

  it('uses a per-region margin over the call-level one', async () => {
    const out = await run({
      min_free_percent: 0,
      regions: [{ name: 'RAM', origin: 0, length_bytes: 2000, min_free_percent: 25 }],
      sections: [{ name: '.bss', size_bytes: 1600, region: 'RAM' }],
    });
    expect(out.regions[0]).toMatchObject({
      required_free_percent: 25,
      required_free_bytes: 500,
      headroom_bytes: -100,
      status: 'below_margin',
    });
  });

  it('places sections by address when no region is given and warns when address and region disagree', async () => {
    const out = await run({
      min_free_percent: 0,
      regions: [FLASH, RAM],
      sections: [
        { name: '.text', size_bytes: 4096, address: 0x08000000 },
        { name: '.bss', size_bytes: 256, address: '0x20000400' },
        { name: '.noinit', size_bytes: 64, region: 'FLASH', address: '0x20001000' },
      ],
    });
    expect(out.regions.map((r) => r.used_bytes)).toEqual([4096 + 64, 256]);
    expect(out.findings).toEqual([
      expect.objectContaining({ severity: 'warning', code: 'address_region_mismatch', region: 'FLASH', section: '.noinit' }),
    ]);
    expect(out.passed).toBe(true);
  });

  it('reports sections that cannot be placed and unknown region names as errors', async () => {
    const out = await run({
      min_free_percent: 0,
      regions: [FLASH, RAM],
      sections: [
        { name: '.ccm', size_bytes: 128, region: 'CCMRAM' },
        { name: '.data', size_bytes: 32, region: 'RAM', load_region: 'ROM' },
        { name: '.orphan', size_bytes: 16, address: '0x10000000' },
        { name: '.mystery', size_bytes: 8 },
      ],
    });
    expect(out.passed).toBe(false);
    expect(out.findings.map((f) => [f.severity, f.code, f.region, f.section])).toEqual([
      ['error', 'unknown_region', 'CCMRAM', '.ccm'],
      ['error', 'unknown_region', 'ROM', '.data'],
      ['error', 'unplaced_section', null, '.mystery'],
      ['error', 'unplaced_section', null, '.orphan'],
    ]);
    expect(out.findings[3].message).toBe(
      'Section .orphan (16 bytes) at 0x10000000 lies in no region (FLASH 0x08000000-0x0800FFFF, RAM 0x20000000-0x20004FFF); set its region so it can be counted.',
    );
    expect(out.regions[1].used_bytes).toBe(32); // .data still counted in RAM
  });

  it('warns when initialized data has no load region but still passes', async () => {
    const out = await run({ min_free_percent: 10, regions: [FLASH, RAM], sections: [{ name: '.data', size_bytes: 512, region: 'RAM' }] });
    expect(out.passed).toBe(true);
    expect(out.warning_count).toBe(1);
    expect(out.findings[0]).toMatchObject({ severity: 'warning', code: 'data_without_load_region', region: 'RAM', section: '.data' });
    expect(out.findings[0].message).toContain('understated by 512 bytes');
  });

  it('handles an empty section list as all free', async () => {
    const out = await run({ min_free_percent: 50, regions: [RAM], sections: [] });
    expect(out.regions[0]).toMatchObject({
      used_bytes: 0,
      free_bytes: 20480,
      used_percent: 0,
      free_percent: 100,
      headroom_bytes: 10240,
      status: 'ok',
    });
    expect(out.passed).toBe(true);
  });

  it('orders findings errors first, then by region and section', async () => {
    const out = await run({
      min_free_percent: 10,
      regions: [
        { name: 'RAM', origin: 0, length_bytes: 100 },
        { name: 'FLASH', origin: 1000, length_bytes: 100 },
      ],
      sections: [
        { name: '.data', size_bytes: 10, region: 'RAM' },
        { name: '.bss', size_bytes: 95, region: 'RAM' },
        { name: '.text', size_bytes: 200, region: 'FLASH' },
      ],
    });
    expect(out.findings.map((f) => `${f.severity}:${f.code}:${f.region}`)).toEqual([
      'error:over_budget:FLASH',
      'error:over_budget:RAM',
      'warning:data_without_load_region:RAM',
    ]);
  });

  it('refuses duplicate region names', async () => {
    const handler = new CheckMemoryBudgetHandler(createTestContext());
    const input = CheckMemoryBudgetInput.parse({ min_free_percent: 0, regions: [RAM, RAM], sections: [] });
    expect(await handler.validatePreconditions(input)).toEqual(["region 'RAM' is listed more than once; region names must be unique"]);
    await expect(handler.execute(input)).rejects.toBeInstanceOf(SkillExecutionError);
  });

  it('rejects negative sizes, margins over 100 % and empty region lists at the schema', () => {
    expect(CheckMemoryBudgetInput.safeParse({ ...typical, sections: [{ name: '.text', size_bytes: -1, region: 'FLASH' }] }).success).toBe(
      false,
    );
    expect(CheckMemoryBudgetInput.safeParse({ ...typical, min_free_percent: 101 }).success).toBe(false);
    expect(CheckMemoryBudgetInput.safeParse({ ...typical, regions: [] }).success).toBe(false);
  });

  it('has JSON Schemas with every property described', () => {
    expect(findUndescribedProperties(toJsonSchema(CheckMemoryBudgetInput, 'input'))).toEqual([]);
    expect(findUndescribedProperties(toJsonSchema(CheckMemoryBudgetOutput, 'output'))).toEqual([]);
  });

  it.each(definition.examples.map((e) => [e.description, e] as const))('declared example: %s', async (_d, example) => {
    expect(CheckMemoryBudgetInput.safeParse(example.input).success).toBe(true);
    expect(await run(example.input)).toEqual(example.output);
    expect(CheckMemoryBudgetOutput.safeParse(example.output).success).toBe(true);
  });
});
