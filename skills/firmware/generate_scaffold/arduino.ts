import type { GeneratedFile } from './schema.js';
import { peripheralSetupHint, text, type Peripheral, type Project, type Signal } from './model.js';

const PLATFORMS: [RegExp, string][] = [
  [/^stm32/, 'ststm32'],
  [/^esp32/, 'espressif32'],
  [/^esp8266/, 'espressif8266'],
  [/^(atmega|attiny|avr)/, 'atmelavr'],
  [/^rp2040/, 'raspberrypi'],
  [/^nrf52/, 'nordicnrf52'],
  [/^sam/, 'atmelsam'],
];

export function platformFor(family: string): string | null {
  return PLATFORMS.find(([re]) => re.test(family))?.[1] ?? null;
}

/** The Arduino expression for a pin, or null when it cannot be derived from the name. */
export function arduinoPin(s: Signal, family: string): string | null {
  const { style, number, name } = s.pin;
  if (style === 'port_letter' && family.startsWith('stm32')) return name.toUpperCase();
  if (style === 'number' || style === 'arduino_digital') return String(number);
  if (style === 'arduino_analog') return `A${number}`;
  return null;
}

const pinOf = (p: Peripheral, role: string): string | null => {
  const s = p.signals.find((x) => x.role === role);
  return s ? `${s.macro}_PIN` : null;
};

/** Body lines of one init stub; `first` is true for the first instance of its kind (the one bound to Wire/SPI). */
function initBody(p: Peripheral, family: string, first: boolean): string[] {
  const stm32 = family.startsWith('stm32');
  const esp32 = family.startsWith('esp32');
  switch (p.kind) {
    case 'gpio':
      return p.signals.flatMap((s) =>
        s.role === 'OUTPUT'
          ? [`  pinMode(${s.macro}_PIN, OUTPUT);`, `  digitalWrite(${s.macro}_PIN, LOW);`]
          : [`  pinMode(${s.macro}_PIN, INPUT); // INPUT_PULLUP if the board has no pull-up`],
      );
    case 'i2c': {
      if (!first) return [`  // TODO: a second TwoWire instance for ${p.instance} (core-specific).`];
      const [sda, scl] = [pinOf(p, 'SDA'), pinOf(p, 'SCL')];
      if (esp32 && sda && scl) return [`  Wire.begin(${sda}, ${scl});`];
      if (stm32 && sda && scl) return [`  Wire.setSDA(${sda});`, `  Wire.setSCL(${scl});`, '  Wire.begin();'];
      return ["  Wire.begin(); // uses the core's default I2C pins: check they match pins.h"];
    }
    case 'spi': {
      if (!first) return [`  // TODO: a second SPIClass instance for ${p.instance} (core-specific).`];
      const [sck, miso, mosi] = [pinOf(p, 'SCK'), pinOf(p, 'MISO'), pinOf(p, 'MOSI')];
      if (esp32 && sck && miso && mosi) return [`  SPI.begin(${sck}, ${miso}, ${mosi});`];
      if (stm32 && sck && miso && mosi)
        return [`  SPI.setSCLK(${sck});`, `  SPI.setMISO(${miso});`, `  SPI.setMOSI(${mosi});`, '  SPI.begin();'];
      return ["  SPI.begin(); // uses the core's default SPI pins: check they match pins.h"];
    }
    case 'uart': {
      const [rx, tx] = [pinOf(p, 'RX'), pinOf(p, 'TX')];
      if (stm32 && rx && tx) return [`  ${p.instance.toLowerCase()}_serial.begin(115200); // TODO: baud rate`];
      if (esp32 && rx && tx) return [`  Serial1.begin(115200, SERIAL_8N1, ${rx}, ${tx}); // TODO: baud rate`];
      return [`  // TODO: open the HardwareSerial bound to ${p.instance} (core-specific name) at the needed baud rate.`];
    }
    case 'adc':
      return p.signals.map((s) => `  // ${s.signal}: read with analogRead(${s.macro}_PIN).`);
    case 'dac':
      return p.signals.map((s) => `  // ${s.signal}: write with analogWrite(${s.macro}_PIN, value).`);
    case 'timer':
      return p.signals.flatMap((s) => [`  pinMode(${s.macro}_PIN, OUTPUT); // PWM: analogWrite(${s.macro}_PIN, duty)`]);
    default:
      return [`  // TODO: ${peripheralSetupHint(p)}.`];
  }
}

function peripheralsCpp(project: Project): string {
  const kinds = new Set(project.peripherals.map((p) => p.kind));
  const seen = new Set<string>();
  const stm32 = project.family.startsWith('stm32');
  const lines = ['#include <Arduino.h>'];
  if (kinds.has('i2c')) lines.push('#include <Wire.h>');
  if (kinds.has('spi')) lines.push('#include <SPI.h>');
  lines.push('', '#include "peripherals.h"', '#include "pins.h"', '');
  for (const p of project.peripherals) {
    const [rx, tx] = [pinOf(p, 'RX'), pinOf(p, 'TX')];
    if (stm32 && p.kind === 'uart' && rx && tx) lines.push(`static HardwareSerial ${p.instance.toLowerCase()}_serial(${rx}, ${tx});`, '');
  }
  for (const p of project.peripherals) {
    const first = !seen.has(p.kind);
    seen.add(p.kind);
    lines.push(
      `// ${p.instance}: ${p.signals.map((s) => `${s.signal} (${s.pin.name}, ${s.role})`).join(', ')}`,
      `void ${p.initFunction}() {`,
      ...initBody(p, project.family, first),
      '}',
      '',
    );
  }
  lines.push('void peripherals_init() {', ...project.peripherals.map((p) => `  ${p.initFunction}();`), '}');
  return text(lines);
}

export function arduinoFiles(project: Project): { files: GeneratedFile[]; warnings: string[] } {
  const warnings: string[] = [];
  const platform = platformFor(project.family);
  if (!platform) warnings.push(`No PlatformIO platform known for MCU family "${project.family}": set platform in platformio.ini.`);
  const defines: string[] = [];
  for (const p of project.peripherals) {
    defines.push(`// ${p.instance}`);
    for (const s of p.signals) {
      const pin = arduinoPin(s, project.family);
      if (pin === null)
        warnings.push(`Pin "${s.pin.name}" of ${s.signal} has no known Arduino pin number: set ${s.macro}_PIN in include/pins.h.`);
      defines.push(`#define ${s.macro}_PIN ${pin ?? '0 /* TODO: Arduino pin number of ' + s.pin.name + ' */'} // ${s.pin.name}, ${s.fn}`);
    }
    defines.push('');
  }
  const files: GeneratedFile[] = [
    {
      path: 'platformio.ini',
      content: text([
        `; PlatformIO project of ${project.name} for the ${project.part}; generated by generate_scaffold.`,
        `[env:${project.board}]`,
        platform ? `platform = ${platform}` : `; TODO: platform for ${project.family}`,
        `board = ${project.board}`,
        'framework = arduino',
        'monitor_speed = 115200',
      ]),
    },
    {
      path: 'include/pins.h',
      content: text([
        `// Pin definitions of ${project.name} for the ${project.part}; generated by generate_scaffold.`,
        '#pragma once',
        '',
        '#include <Arduino.h>',
        '',
        ...defines,
      ]),
    },
    {
      path: 'include/peripherals.h',
      content: text([
        '#pragma once',
        '',
        ...project.peripherals.map((p) => `void ${p.initFunction}();`),
        '',
        '// Calls every init stub above, GPIO first.',
        'void peripherals_init();',
      ]),
    },
    { path: 'src/peripherals.cpp', content: peripheralsCpp(project) },
    {
      path: 'src/main.cpp',
      content: text([
        '#include <Arduino.h>',
        '',
        '#include "peripherals.h"',
        '#include "pins.h"',
        '',
        'void setup() {',
        '  peripherals_init();',
        '}',
        '',
        'void loop() {',
        '}',
      ]),
    },
  ];
  return { files, warnings };
}
