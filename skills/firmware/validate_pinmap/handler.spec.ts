import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { SkillExecutionError, createTestContext, findUndescribedProperties, toJsonSchema } from '@skill-registry/sdk';
import { ValidatePinmapHandler } from './handler.js';
import { ValidatePinmapInput, ValidatePinmapOutput, type PinAssignment, type SchematicConnection } from './schema.js';

const definition = JSON.parse(readFileSync(new URL('./definition.json', import.meta.url), 'utf8')) as {
  examples: { description: string; input: unknown; output: unknown }[];
};

/** A subset of the STM32F103C8T6 (LQFP48) pin table. */
const mcu = {
  part_number: 'STM32F103C8T6',
  pins: [
    { name: 'PA0', kind: 'io', functions: ['ADC12_IN0', 'USART2_CTS', 'TIM2_CH1'] },
    { name: 'PA1', kind: 'io', functions: ['ADC12_IN1', 'USART2_RTS', 'TIM2_CH2'] },
    { name: 'PA2', kind: 'io', functions: ['ADC12_IN2', 'USART2_TX', 'TIM2_CH3'] },
    { name: 'PA3', kind: 'io', functions: ['ADC12_IN3', 'USART2_RX', 'TIM2_CH4'] },
    { name: 'PA9', kind: 'io', functions: ['USART1_TX', 'TIM1_CH2'] },
    { name: 'PA10', kind: 'io', functions: ['USART1_RX', 'TIM1_CH3'] },
    { name: 'PA13', kind: 'io', functions: [], reserved_for: 'SWD debug (SWDIO)' },
    { name: 'PB0', kind: 'io', functions: ['ADC12_IN8', 'TIM3_CH3'] },
    { name: 'PB2', kind: 'io', functions: [] },
    { name: 'PB6', kind: 'io', functions: ['I2C1_SCL', 'TIM4_CH1', 'USART1_TX'] },
    { name: 'PB7', kind: 'io', functions: ['I2C1_SDA', 'TIM4_CH2', 'USART1_RX'] },
    { name: 'PB10', kind: 'io', functions: ['I2C2_SCL', 'USART3_TX'] },
    { name: 'PB11', kind: 'io', functions: ['I2C2_SDA', 'USART3_RX'] },
    { name: 'PC13', kind: 'io', functions: [] },
    { name: 'VDD_1', kind: 'power', functions: [] },
    { name: 'VSS_1', kind: 'ground', functions: [] },
    { name: 'NRST', kind: 'reset', functions: [] },
    { name: 'BOOT0', kind: 'boot', functions: [] },
  ],
};

const goodMap: PinAssignment[] = [
  { signal: 'I2C_SCL', pin: 'PB6', function: 'I2C1_SCL' },
  { signal: 'I2C_SDA', pin: 'PB7', function: 'I2C1_SDA' },
  { signal: 'DBG_TX', pin: 'PA2', function: 'USART2_TX' },
  { signal: 'DBG_RX', pin: 'PA3', function: 'USART2_RX' },
  { signal: 'LED', pin: 'PC13', function: 'GPIO_OUTPUT' },
  { signal: 'VBAT_SENSE', pin: 'PA0', function: 'ADC12_IN0' },
];
const goodNets: SchematicConnection[] = [
  ...goodMap.map((a) => ({ net: a.signal, pin: a.pin })),
  { net: '+3V3', pin: 'VDD_1' },
  { net: 'GND', pin: 'VSS_1' },
  { net: 'NRST', pin: 'NRST' },
  { net: 'SWDIO', pin: 'PA13' },
];

async function run(pinMap: PinAssignment[], nets?: SchematicConnection[], mcuOverride: unknown = mcu) {
  const input = ValidatePinmapInput.parse({ mcu: mcuOverride, pin_map: pinMap, ...(nets ? { schematic_nets: nets } : {}) });
  return ValidatePinmapOutput.parse(await new ValidatePinmapHandler(createTestContext()).execute(input));
}

const codes = (out: ValidatePinmapOutput) => out.findings.map((f) => [f.severity, f.code, f.pin, f.signal]);

describe('validate_pinmap', () => {
  it('accepts a pin map that matches the MCU and the schematic', async () => {
    const out = await run(goodMap, goodNets);
    expect(out).toEqual({
      valid: true,
      mcu_part_number: 'STM32F103C8T6',
      assignments_checked: 6,
      schematic_checked: true,
      error_count: 0,
      warning_count: 0,
      findings: [],
    });
  });

  it('reports a pin used twice, on the second signal, with free pins that could take it', async () => {
    const out = await run([...goodMap, { signal: 'BUZZER', pin: 'PB6', function: 'GPIO_OUTPUT' }]);
    expect(codes(out)).toEqual([['error', 'pin_double_use', 'PB6', 'BUZZER']]);
    // free io pins (not assigned, not reserved) offering GPIO_OUTPUT, natural order, at most 5
    expect(out.findings[0].suggested_pins).toEqual(['PA1', 'PA9', 'PA10', 'PB0', 'PB2']);
    expect(out.findings[0].message).toBe(
      'Pin PB6 is already assigned to I2C_SCL (I2C1_SCL); BUZZER (GPIO_OUTPUT) cannot use it too. Move one of them. Free pins that offer GPIO_OUTPUT: PA1, PA9, PA10, PB0, PB2.',
    );
    expect(out.valid).toBe(false);
  });

  it('reports ADC on a pin without an ADC channel and points to the pin that has it', async () => {
    const out = await run([{ signal: 'VBAT_SENSE', pin: 'PB2', function: 'ADC12_IN8' }]);
    expect(codes(out)).toEqual([['error', 'function_unsupported', 'PB2', 'VBAT_SENSE']]);
    expect(out.findings[0].message).toBe(
      'Pin PB2 does not support ADC12_IN8 (no such ADC channel on this pin), needed by VBAT_SENSE; it offers: GPIO_INPUT, GPIO_OUTPUT. Free pins that offer ADC12_IN8: PB0.',
    );
    expect(out.findings[0].suggested_pins).toEqual(['PB0']);
  });

  it('suggests another instance of the peripheral when the exact function is taken', async () => {
    // I2C1_SDA only exists on PB7, which is taken, so the I2C2 SDA pin is suggested
    const out = await run([
      { signal: 'LED', pin: 'PB7', function: 'GPIO_OUTPUT' },
      { signal: 'I2C_SDA', pin: 'PA1', function: 'I2C1_SDA' },
    ]);
    expect(codes(out)).toEqual([['error', 'function_unsupported', 'PA1', 'I2C_SDA']]);
    expect(out.findings[0].suggested_pins).toEqual(['PB11']);
    expect(out.findings[0].message).toContain(
      'No free pin offers I2C1_SDA (I2C1_SDA is only on PB7, already in use or reserved); free pins with another I2C SDA: PB11.',
    );
  });

  it('reports pins the MCU does not have, from the pin map and from the schematic', async () => {
    const out = await run([{ signal: 'CS', pin: 'PZ9', function: 'GPIO_OUTPUT' }], [{ net: 'CS', pin: 'PZ9' }]);
    expect(codes(out)).toEqual([
      ['error', 'unknown_pin', 'PZ9', 'CS'],
      ['error', 'unknown_pin', 'PZ9', 'CS'],
    ]);
    expect(out.findings.map((f) => f.message)).toEqual([
      expect.stringContaining('Signal CS (GPIO_OUTPUT) is assigned to pin PZ9, which the STM32F103C8T6 does not have'),
      expect.stringContaining('The schematic wires net CS to pin PZ9'),
    ]);
  });

  it('refuses power, ground, reset and boot pins and warns on pins reserved for debug', async () => {
    const out = await run([
      { signal: 'EN', pin: 'VDD_1', function: 'GPIO_OUTPUT' },
      { signal: 'EN2', pin: 'VSS_1', function: 'GPIO_OUTPUT' },
      { signal: 'EN3', pin: 'NRST', function: 'GPIO_INPUT' },
      { signal: 'EN4', pin: 'BOOT0', function: 'GPIO_INPUT' },
      { signal: 'LED2', pin: 'PA13', function: 'GPIO_OUTPUT' },
    ]);
    expect(codes(out)).toEqual([
      ['error', 'reserved_pin', 'BOOT0', 'EN4'],
      ['error', 'reserved_pin', 'NRST', 'EN3'],
      ['error', 'reserved_pin', 'VDD_1', 'EN'],
      ['error', 'reserved_pin', 'VSS_1', 'EN2'],
      ['warning', 'reserved_pin', 'PA13', 'LED2'],
    ]);
    expect(out.findings[2].message).toContain('Pin VDD_1 is a power pin and cannot carry EN (GPIO_OUTPUT)');
    expect(out.findings[4].message).toContain('Pin PA13 is reserved for SWD debug (SWDIO)');
  });

  it('reports a peripheral function routed to two pins', async () => {
    const out = await run([
      { signal: 'GPS_TX', pin: 'PA9', function: 'USART1_TX' },
      { signal: 'LOG_TX', pin: 'PB6', function: 'USART1_TX' },
    ]);
    expect(codes(out)).toEqual([['error', 'function_conflict', 'PB6', 'LOG_TX']]);
    expect(out.findings[0].message).toContain('USART1_TX is already routed to PA9 for GPS_TX');
  });

  it('warns on an exact duplicate entry without calling it double use', async () => {
    const out = await run([goodMap[4], goodMap[4]]);
    expect(codes(out)).toEqual([['warning', 'duplicate_assignment', 'PC13', 'LED']]);
    expect(out.valid).toBe(true);
  });

  it('honours input-only pins and accepts GPIO for either direction', async () => {
    const esp = { part_number: 'ESP32-WROOM-32', pins: [{ name: 'GPIO34', kind: 'io', functions: ['GPIO_INPUT', 'ADC1_CH6'] }] };
    const out = await run(
      [
        { signal: 'BTN', pin: 'GPIO34', function: 'GPIO' },
        { signal: 'RELAY', pin: 'gpio34', function: 'gpio_output' },
      ],
      undefined,
      esp,
    );
    // case-insensitive: gpio34 is GPIO34, so the second entry is a double use before anything else
    expect(codes(out)).toEqual([['error', 'pin_double_use', 'GPIO34', 'RELAY']]);
    const single = await run([{ signal: 'RELAY', pin: 'GPIO34', function: 'GPIO_OUTPUT' }], undefined, esp);
    expect(single.findings[0].message).toBe(
      'Pin GPIO34 does not support GPIO_OUTPUT (no such GPIO output on this pin), needed by RELAY; it offers: ADC1_CH6, GPIO_INPUT. No free pin offers GPIO_OUTPUT or another GPIO output.',
    );
  });

  it('reports schematic nets the pin map leaves unassigned, ignoring power, reset and reserved pins', async () => {
    const out = await run(goodMap.slice(0, 5), goodNets);
    expect(codes(out)).toEqual([['error', 'net_unassigned', 'PA0', 'VBAT_SENSE']]);
    expect(out.findings[0].message).toBe(
      'Net VBAT_SENSE is wired to PA0 in the schematic but the pin map leaves it unassigned; add VBAT_SENSE on PA0 with the function it needs (it offers: ADC12_IN0, GPIO_INPUT, GPIO_OUTPUT, TIM2_CH1, USART2_CTS).',
    );
    expect(out.findings[0].suggested_pins).toEqual(['PA0']);
  });

  it('reports a signal on a different pin than the schematic, and a pin that carries another net', async () => {
    const nets = [
      { net: 'I2C_SCL', pin: 'PB10' },
      { net: 'STATUS_LED', pin: 'PC13' },
    ];
    const out = await run(
      [
        { signal: 'I2C_SCL', pin: 'PB6', function: 'I2C1_SCL' },
        { signal: 'LED', pin: 'PC13', function: 'GPIO_OUTPUT' },
      ],
      nets,
    );
    expect(codes(out)).toEqual([
      ['error', 'pin_mismatch', 'PB6', 'I2C_SCL'],
      ['error', 'pin_mismatch', 'PC13', 'LED'],
    ]);
    expect(out.findings[0].message).toBe(
      'Signal I2C_SCL is assigned to PB6, but the schematic wires net I2C_SCL to PB10; change the pin map to PB10, or fix the schematic.',
    );
    expect(out.findings[0].suggested_pins).toEqual(['PB10']);
    expect(out.findings[1].message).toContain('Pin PC13 carries net STATUS_LED in the schematic, not LED');
  });

  it('warns about a signal that is in no schematic net', async () => {
    const out = await run([goodMap[4]], [{ net: 'GND', pin: 'VSS_1' }]);
    expect(codes(out)).toEqual([['warning', 'signal_not_in_schematic', 'PC13', 'LED']]);
    expect(out.valid).toBe(true);
  });

  it('accepts an empty pin map without a schematic, and skips schematic checks when none is given', async () => {
    const out = await run([]);
    expect(out).toMatchObject({ valid: true, assignments_checked: 0, schematic_checked: false, findings: [] });
    const withNets = await run([], [{ net: 'GND', pin: 'VSS_1' }]);
    expect(withNets).toMatchObject({ valid: true, schematic_checked: true, findings: [] });
  });

  it('orders findings errors first, then pins in natural order', async () => {
    const out = await run([
      { signal: 'A', pin: 'PA10', function: 'ADC12_IN9' },
      { signal: 'B', pin: 'PA9', function: 'I2C1_SDA' },
      { signal: 'C', pin: 'PA2', function: 'SPI1_SCK' },
      { signal: 'D', pin: 'PA13', function: 'GPIO_INPUT' },
    ]);
    expect(out.findings.map((f) => `${f.severity}:${f.pin}`)).toEqual(['error:PA2', 'error:PA9', 'error:PA10', 'warning:PA13']);
    expect(out.findings[0].message).toContain('No free pin offers SPI1_SCK or another SPI SCK.');
  });

  it('refuses an MCU pin list with duplicate names', async () => {
    const handler = new ValidatePinmapHandler(createTestContext());
    const input = ValidatePinmapInput.parse({
      mcu: { part_number: 'X', pins: [mcu.pins[0], { ...mcu.pins[0], name: 'pa0' }] },
      pin_map: [],
    });
    expect(await handler.validatePreconditions(input)).toEqual(["MCU pin 'pa0' is listed more than once; pin names must be unique"]);
    await expect(handler.execute(input)).rejects.toBeInstanceOf(SkillExecutionError);
  });

  it('rejects unknown pin kinds and extra fields at the schema', () => {
    expect(
      ValidatePinmapInput.safeParse({ mcu: { part_number: 'X', pins: [{ name: 'P1', kind: 'analog', functions: [] }] }, pin_map: [] })
        .success,
    ).toBe(false);
    expect(ValidatePinmapInput.safeParse({ mcu, pin_map: [{ ...goodMap[0], pull: 'up' }] }).success).toBe(false);
  });

  it('has JSON Schemas with every property described', () => {
    expect(findUndescribedProperties(toJsonSchema(ValidatePinmapInput, 'input'))).toEqual([]);
    expect(findUndescribedProperties(toJsonSchema(ValidatePinmapOutput, 'output'))).toEqual([]);
  });

  it.each(definition.examples.map((e) => [e.description, e] as const))('declared example: %s', async (_d, example) => {
    expect(ValidatePinmapInput.safeParse(example.input).success).toBe(true);
    const input = ValidatePinmapInput.parse(example.input);
    const out = await new ValidatePinmapHandler(createTestContext()).execute(input);
    expect(out).toEqual(example.output);
    expect(ValidatePinmapOutput.safeParse(example.output).success).toBe(true);
  });
});
