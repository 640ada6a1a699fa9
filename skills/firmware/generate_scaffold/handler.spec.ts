import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { SkillExecutionError, createTestContext, findUndescribedProperties, toJsonSchema } from '@skill-registry/sdk';
import { GenerateScaffoldHandler } from './handler.js';
import { GenerateScaffoldInput, GenerateScaffoldOutput } from './schema.js';

const definition = JSON.parse(readFileSync(new URL('./definition.json', import.meta.url), 'utf8')) as {
  examples: { description: string; input: unknown; output: unknown }[];
};

const pinMap = [
  { signal: 'LED_STATUS', pin: 'PC13', function: 'GPIO_OUTPUT' },
  { signal: 'BUTTON', pin: 'PA0', function: 'GPIO_INPUT' },
  { signal: 'I2C_SDA', pin: 'PB7', function: 'I2C1_SDA' },
  { signal: 'I2C_SCL', pin: 'PB6', function: 'I2C1_SCL' },
  { signal: 'DBG_TX', pin: 'PA2', function: 'USART2_TX' },
  { signal: 'DBG_RX', pin: 'PA3', function: 'USART2_RX' },
  { signal: 'VBAT', pin: 'PA1', function: 'ADC1_IN1' },
  { signal: 'FAN_PWM', pin: 'PA8', function: 'TIM1_CH1' },
];

function input(framework: 'bare_metal_c' | 'zephyr' | 'arduino', extra: object = {}, map: unknown[] = pinMap) {
  return {
    project: { name: 'sensor-node', mcu_family: 'stm32f4', mcu_part: 'STM32F411CEU6', framework, board: 'blackpill_f411ce', ...extra },
    pin_map: map,
  };
}

async function run(raw: unknown) {
  const parsed = GenerateScaffoldInput.parse(raw);
  return GenerateScaffoldOutput.parse(await new GenerateScaffoldHandler(createTestContext()).execute(parsed));
}

const file = (out: GenerateScaffoldOutput, path: string) => {
  const found = out.files.find((f) => f.path === path);
  if (!found) throw new Error(`no file ${path} in ${out.files.map((f) => f.path).join(', ')}`);
  return found.content;
};

describe('generate_scaffold', () => {
  it('generates a bare-metal C project with pin #defines, one init stub per peripheral, main, CMake and README', async () => {
    const out = await run(input('bare_metal_c'));
    expect(out.files.map((f) => f.path)).toEqual([
      'CMakeLists.txt',
      'README.md',
      'include/peripherals.h',
      'include/pins.h',
      'src/main.c',
      'src/peripherals.c',
    ]);
    const pins = file(out, 'include/pins.h');
    expect(pins).toContain('#define LED_STATUS_PORT GPIOC /* PC13, GPIO_OUTPUT */\n#define LED_STATUS_PIN 13U\n');
    expect(pins).toContain('#define VBAT_PIN 1U\n#define VBAT_CHANNEL 1U\n');
    expect(pins).toContain('#define FAN_PWM_CHANNEL 1U');
    const c = file(out, 'src/peripherals.c');
    for (const fn of ['gpio_init', 'adc1_init', 'i2c1_init', 'tim1_init', 'usart2_init']) expect(c).toContain(`void ${fn}(void)\n{`);
    expect(c).toContain('/* TODO: I2C_SDA on PB7: alternate function I2C1_SDA, open-drain (pull-ups on the board). */');
    expect(c).toContain(
      'void peripherals_init(void)\n{\n    gpio_init();\n    adc1_init();\n    i2c1_init();\n    tim1_init();\n    usart2_init();\n}\n',
    );
    expect(file(out, 'CMakeLists.txt')).toContain('set(CPU_FLAGS -mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard)');
    expect(file(out, 'README.md')).toContain('| I2C_SDA | PB7 | I2C1_SDA | I2C1 |');
    expect(out.peripherals.map((p) => [p.instance, p.kind, p.init_function])).toEqual([
      ['GPIO', 'gpio', 'gpio_init'],
      ['ADC1', 'adc', 'adc1_init'],
      ['I2C1', 'i2c', 'i2c1_init'],
      ['TIM1', 'timer', 'tim1_init'],
      ['USART2', 'uart', 'usart2_init'],
    ]);
    expect(out.peripherals[2].signals).toEqual([
      { signal: 'I2C_SCL', pin: 'PB6', role: 'SCL' },
      { signal: 'I2C_SDA', pin: 'PB7', role: 'SDA' },
    ]);
  });

  it('generates a Zephyr app with a devicetree overlay using STM32 pinctrl labels and the needed Kconfig', async () => {
    const out = await run(input('zephyr'));
    expect(out.files.map((f) => f.path)).toEqual([
      'CMakeLists.txt',
      'README.md',
      'app.overlay',
      'prj.conf',
      'src/main.c',
      'src/peripherals.c',
      'src/peripherals.h',
    ]);
    const overlay = file(out, 'app.overlay');
    expect(overlay).toContain('\t\tled-status-gpios = <&gpioc 13 GPIO_ACTIVE_HIGH>; /* PC13, output */');
    expect(overlay).toContain(
      '&i2c1 {\n\tpinctrl-0 = <&i2c1_scl_pb6 &i2c1_sda_pb7>;\n\tpinctrl-names = "default";\n\tstatus = "okay";\n};',
    );
    expect(overlay).toContain('&timers1 {\n\tstatus = "okay";\n\tpwm1: pwm {');
    expect(overlay).toContain('pinctrl-0 = <&adc1_in1_pa1>;');
    expect(file(out, 'prj.conf')).toBe(
      '# Kconfig of sensor-node: drivers for the peripherals in the pin map.\nCONFIG_ADC=y\nCONFIG_GPIO=y\nCONFIG_I2C=y\nCONFIG_PWM=y\nCONFIG_SERIAL=y\n',
    );
    const c = file(out, 'src/peripherals.c');
    expect(c).toContain('GPIO_DT_SPEC_GET(DT_PATH(zephyr_user), led_status_gpios)');
    expect(c).toContain('DEVICE_DT_GET(DT_NODELABEL(pwm1))');
    expect(file(out, 'CMakeLists.txt')).toContain('find_package(Zephyr REQUIRED HINTS $ENV{ZEPHYR_BASE})\nproject(sensor-node)');
    expect(file(out, 'README.md')).toContain('west build -b blackpill_f411ce .');
    expect(out.warnings).toEqual([]);
  });

  it('leaves pinctrl as a TODO with a warning for non-STM32 Zephyr targets and maps nRF and numbered GPIOs', async () => {
    const out = await run({
      project: { name: 'tracker', mcu_family: 'nrf52', mcu_part: 'nRF52840-QIAA', framework: 'zephyr', board: 'nrf52840dk/nrf52840' },
      pin_map: [
        { signal: 'LED', pin: 'P0.13', function: 'GPIO_OUTPUT' },
        { signal: 'BTN', pin: 'P1.02', function: 'GPIO' },
        { signal: 'SDA', pin: 'P0.26', function: 'I2C0_SDA' },
      ],
    });
    const overlay = file(out, 'app.overlay');
    expect(overlay).toContain('led-gpios = <&gpio0 13 GPIO_ACTIVE_HIGH>;');
    expect(overlay).toContain('btn-gpios = <&gpio1 2 GPIO_ACTIVE_HIGH>; /* P1.02, input */');
    expect(overlay).toContain('&i2c0 {\n\t/* TODO: pinctrl for SDA on P0.26 per the nrf52 pinctrl binding */\n\tstatus = "okay";\n};');
    expect(out.warnings).toEqual(['Pinctrl for I2C0 is not generated for family "nrf52": complete &i2c0 in app.overlay.']);
  });

  it('generates a PlatformIO Arduino project with core-specific pin selection for STM32', async () => {
    const out = await run(input('arduino'));
    expect(out.files.map((f) => f.path)).toEqual([
      'README.md',
      'include/peripherals.h',
      'include/pins.h',
      'platformio.ini',
      'src/main.cpp',
      'src/peripherals.cpp',
    ]);
    expect(file(out, 'platformio.ini')).toContain(
      '[env:blackpill_f411ce]\nplatform = ststm32\nboard = blackpill_f411ce\nframework = arduino\n',
    );
    expect(file(out, 'include/pins.h')).toContain('#define LED_STATUS_PIN PC13 // PC13, GPIO_OUTPUT');
    const cpp = file(out, 'src/peripherals.cpp');
    expect(cpp).toContain('  Wire.setSDA(I2C_SDA_PIN);\n  Wire.setSCL(I2C_SCL_PIN);\n  Wire.begin();');
    expect(cpp).toContain('static HardwareSerial usart2_serial(DBG_RX_PIN, DBG_TX_PIN);');
    expect(cpp).toContain('  pinMode(LED_STATUS_PIN, OUTPUT);\n  digitalWrite(LED_STATUS_PIN, LOW);');
  });

  it('maps ESP32 GPIO numbers for Arduino and warns about pins it cannot map', async () => {
    const out = await run({
      project: { name: 'esp', mcu_family: 'esp32', mcu_part: 'ESP32-WROOM-32E', framework: 'arduino', board: 'esp32dev' },
      pin_map: [
        { signal: 'SDA', pin: 'GPIO21', function: 'I2C0_SDA' },
        { signal: 'SCL', pin: 'GPIO22', function: 'I2C0_SCL' },
        { signal: 'ODD', pin: 'XTAL_P', function: 'GPIO_OUTPUT' },
      ],
    });
    expect(file(out, 'include/pins.h')).toContain('#define SDA_PIN 21 // GPIO21, I2C0_SDA');
    expect(file(out, 'src/peripherals.cpp')).toContain('  Wire.begin(SDA_PIN, SCL_PIN);');
    expect(out.warnings).toEqual(['Pin "XTAL_P" of ODD has no known Arduino pin number: set ODD_PIN in include/pins.h.']);
    expect(file(out, 'README.md')).toContain('## To complete by hand\n\n- Pin "XTAL_P" of ODD');
  });

  it('is deterministic and independent of the pin map order', async () => {
    const a = await run(input('zephyr'));
    const b = await run(input('zephyr', {}, [...pinMap].reverse()));
    expect(b).toEqual(a);
  });

  it('refuses a pin map with double-used pins or clashing signal names', async () => {
    const handler = new GenerateScaffoldHandler(createTestContext());
    const bad = GenerateScaffoldInput.parse(
      input('bare_metal_c', {}, [
        { signal: 'LED', pin: 'PC13', function: 'GPIO_OUTPUT' },
        { signal: 'BUZZER', pin: 'pc13', function: 'GPIO_OUTPUT' },
        { signal: 'led', pin: 'PA5', function: 'GPIO_OUTPUT' },
      ]),
    );
    expect(await handler.validatePreconditions(bad)).toEqual([
      'pin PC13 is used 2 times (LED, BUZZER); fix the pin map with validate_pinmap first',
      'signals LED, led all map to the identifier LED; give them distinct names',
    ]);
    await expect(handler.execute(bad)).rejects.toBeInstanceOf(SkillExecutionError);
    await expect(handler.execute(bad)).rejects.toThrow(/pin PC13 is used 2 times/);
  });

  it('requires a board for Arduino', async () => {
    const handler = new GenerateScaffoldHandler(createTestContext());
    const parsed = GenerateScaffoldInput.parse(input('arduino', { board: undefined }));
    expect(await handler.validatePreconditions(parsed)).toEqual([
      'project.board is required for the arduino framework (the PlatformIO board id, e.g. "nucleo_f411re")',
    ]);
  });

  it('generates a compilable skeleton for an empty pin map and warns about unknown CPU families', async () => {
    const out = await run({ project: { name: 'blank', mcu_family: 'riscv-x', mcu_part: 'X1', framework: 'bare_metal_c' }, pin_map: [] });
    expect(out.peripherals).toEqual([]);
    expect(file(out, 'src/peripherals.c')).toBe('#include "peripherals.h"\n#include "pins.h"\n\nvoid peripherals_init(void)\n{\n}\n');
    expect(file(out, 'CMakeLists.txt')).toContain('set(CPU_FLAGS) # TODO: CPU flags for riscv-x');
    expect(out.warnings[0]).toBe('No CPU flags known for MCU family "riscv-x": set CPU_FLAGS and the compiler in CMakeLists.txt.');
    expect(file(out, 'README.md')).toContain('No pins assigned yet.');
  });

  it('turns signal names into valid C identifiers', async () => {
    const out = await run(input('bare_metal_c', {}, [{ signal: '3v3-enable', pin: 'PB0', function: 'gpio_output' }]));
    expect(file(out, 'include/pins.h')).toContain('#define SIG_3V3_ENABLE_PORT GPIOB /* PB0, GPIO_OUTPUT */');
  });

  it('rejects invalid project names and frameworks at the schema', () => {
    expect(GenerateScaffoldInput.safeParse(input('bare_metal_c', { name: 'my project' })).success).toBe(false);
    expect(
      GenerateScaffoldInput.safeParse({ ...input('bare_metal_c'), project: { ...input('bare_metal_c').project, framework: 'mbed' } })
        .success,
    ).toBe(false);
  });

  it('has JSON Schemas with every property described', () => {
    expect(findUndescribedProperties(toJsonSchema(GenerateScaffoldInput, 'input'))).toEqual([]);
    expect(findUndescribedProperties(toJsonSchema(GenerateScaffoldOutput, 'output'))).toEqual([]);
  });

  it.each(definition.examples.map((e) => [e.description, e] as const))('declared example: %s', async (_d, example) => {
    expect(GenerateScaffoldInput.safeParse(example.input).success).toBe(true);
    expect(await run(example.input)).toEqual(example.output);
    expect(GenerateScaffoldOutput.safeParse(example.output).success).toBe(true);
  });
});
