import type { GenerateScaffoldInput, PeripheralSummary } from './schema.js';

export type Kind = PeripheralSummary['kind'];
export type Framework = GenerateScaffoldInput['project']['framework'];

/** A pin name broken into port and number where its style is recognised. */
export interface PinRef {
  name: string;
  style: 'port_letter' | 'port_number' | 'number' | 'arduino_digital' | 'arduino_analog' | 'opaque';
  /** "A" for PA5, "0" for P0.13; null otherwise. */
  port: string | null;
  /** 5 for PA5, 13 for P0.13, 4 for GPIO4; null for opaque names. */
  number: number | null;
}

export interface Signal {
  signal: string;
  /** Upper-case C identifier: "LED_STATUS". */
  macro: string;
  /** Lower-case C identifier: "led_status". */
  ident: string;
  pin: PinRef;
  fn: string;
  instance: string;
  role: string;
  kind: Kind;
}

export interface Peripheral {
  instance: string;
  kind: Kind;
  initFunction: string;
  signals: Signal[];
}

export interface Project {
  name: string;
  family: string;
  part: string;
  framework: Framework;
  board: string | null;
  description: string | null;
  signals: Signal[];
  peripherals: Peripheral[];
}

export function naturalCompare(a: string, b: string): number {
  const pa = a.match(/\d+|\D+/g) ?? [];
  const pb = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const [x, y] = [pa[i], pb[i]];
    if (x === y) continue;
    if (/^\d/.test(x) && /^\d/.test(y) && Number(x) !== Number(y)) return Number(x) - Number(y);
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length || (a < b ? -1 : a > b ? 1 : 0);
}

export function parsePin(raw: string): PinRef {
  const name = raw.trim();
  const upper = name.toUpperCase();
  let m: RegExpMatchArray | null;
  if ((m = upper.match(/^P([A-Z])(\d{1,2})$/))) return { name, style: 'port_letter', port: m[1], number: Number(m[2]) };
  if ((m = upper.match(/^P(\d)\.(\d{1,2})$/))) return { name, style: 'port_number', port: m[1], number: Number(m[2]) };
  if ((m = upper.match(/^(?:GPIO|IO)?(\d{1,3})$/))) return { name, style: 'number', port: null, number: Number(m[1]) };
  if ((m = upper.match(/^D(\d{1,3})$/))) return { name, style: 'arduino_digital', port: null, number: Number(m[1]) };
  if ((m = upper.match(/^A(\d{1,2})$/))) return { name, style: 'arduino_analog', port: null, number: Number(m[1]) };
  return { name, style: 'opaque', port: null, number: null };
}

const KIND_PATTERNS: [RegExp, Kind][] = [
  [/^ADC/, 'adc'],
  [/^DAC/, 'dac'],
  [/^(I2C|TWI)/, 'i2c'],
  [/^SPI/, 'spi'],
  [/^(LP)?US?ART/, 'uart'],
  [/^(LP|HR)?TIM/, 'timer'],
  [/^(FD)?CAN/, 'can'],
  [/^USB/, 'usb'],
];

/** "I2C1_SDA" -> I2C1 / SDA / i2c; "GPIO_OUTPUT" -> GPIO / OUTPUT / gpio; plain "GPIO" is an input. */
export function parseFunction(raw: string): { fn: string; instance: string; role: string; kind: Kind } {
  const fn = raw.trim().toUpperCase();
  if (fn === 'GPIO' || fn === 'GPIO_INPUT') return { fn: 'GPIO_INPUT', instance: 'GPIO', role: 'INPUT', kind: 'gpio' };
  if (fn === 'GPIO_OUTPUT') return { fn, instance: 'GPIO', role: 'OUTPUT', kind: 'gpio' };
  const cut = fn.lastIndexOf('_');
  const instance = cut < 0 ? fn : fn.slice(0, cut);
  const role = cut < 0 ? '' : fn.slice(cut + 1);
  const kind = KIND_PATTERNS.find(([re]) => re.test(instance))?.[1] ?? 'other';
  return { fn, instance, role, kind };
}

/** Upper-case C identifier for a signal name. */
export function macroName(signal: string): string {
  const cleaned = signal
    .trim()
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (cleaned === '') return 'SIG';
  return /^\d/.test(cleaned) ? `SIG_${cleaned}` : cleaned;
}

/** Reasons the pin map cannot be turned into a project (double-used pins, clashing names). */
export function findInputProblems(input: GenerateScaffoldInput): string[] {
  const problems: string[] = [];
  const byPin = new Map<string, string[]>();
  const byMacro = new Map<string, string[]>();
  for (const a of input.pin_map) {
    const pinKey = a.pin.trim().toUpperCase();
    byPin.set(pinKey, [...(byPin.get(pinKey) ?? []), a.signal]);
    const macro = macroName(a.signal);
    byMacro.set(macro, [...(byMacro.get(macro) ?? []), a.signal]);
  }
  for (const [pin, signals] of [...byPin].sort(([a], [b]) => naturalCompare(a, b))) {
    if (signals.length > 1)
      problems.push(`pin ${pin} is used ${signals.length} times (${signals.join(', ')}); fix the pin map with validate_pinmap first`);
  }
  for (const [macro, signals] of [...byMacro].sort(([a], [b]) => naturalCompare(a, b))) {
    if (signals.length > 1) problems.push(`signals ${signals.join(', ')} all map to the identifier ${macro}; give them distinct names`);
  }
  return problems;
}

export function buildProject(input: GenerateScaffoldInput): Project {
  const signals: Signal[] = input.pin_map.map((a) => {
    const macro = macroName(a.signal);
    return { signal: a.signal, macro, ident: macro.toLowerCase(), pin: parsePin(a.pin), ...parseFunction(a.function) };
  });
  const groups = new Map<string, Signal[]>();
  for (const s of signals) groups.set(s.instance, [...(groups.get(s.instance) ?? []), s]);
  const peripherals: Peripheral[] = [...groups]
    .map(([instance, members]) => ({
      instance,
      kind: members[0].kind,
      initFunction: `${instance.toLowerCase()}_init`,
      signals: [...members].sort((a, b) => naturalCompare(a.role, b.role) || naturalCompare(a.signal, b.signal)),
    }))
    .sort((a, b) => Number(b.kind === 'gpio') - Number(a.kind === 'gpio') || naturalCompare(a.instance, b.instance));
  return {
    name: input.project.name,
    family: input.project.mcu_family.trim().toLowerCase(),
    part: input.project.mcu_part,
    framework: input.project.framework,
    board: input.project.board ?? null,
    description: input.project.description ?? null,
    signals: [...signals].sort((a, b) => naturalCompare(a.macro, b.macro)),
    peripherals,
  };
}

/** Join lines into file content ending with one newline. */
export function text(lines: string[]): string {
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}

/** What to do with the pins of a peripheral during init, per kind (shared by all frameworks). */
export function pinSetupHint(s: Signal): string {
  switch (s.kind) {
    case 'gpio':
      return s.role === 'OUTPUT' ? 'push-pull output, start inactive' : 'input, enable a pull-up/down if the board has none';
    case 'adc':
    case 'dac':
      return 'analog mode';
    case 'i2c':
      return `alternate function ${s.fn}, open-drain (pull-ups on the board)`;
    default:
      return `alternate function ${s.fn}, push-pull`;
  }
}

/** The peripheral-level setup left to the engineer, per kind. */
export function peripheralSetupHint(p: Peripheral): string {
  const roles = p.signals.map((s) => s.role).join(', ');
  switch (p.kind) {
    case 'gpio':
      return 'set the initial output levels';
    case 'adc':
      return `calibrate ${p.instance}, set the sampling time of channels ${roles} and enable it`;
    case 'dac':
      return `enable ${p.instance} channel(s) ${roles} and set the initial output value`;
    case 'i2c':
      return `set the ${p.instance} bus timing (100 kHz or 400 kHz) and enable it`;
    case 'spi':
      return `set the ${p.instance} mode (CPOL/CPHA), clock prescaler and frame size, then enable it`;
    case 'uart':
      return `set the ${p.instance} baud rate and frame format (e.g. 115200 8N1) and enable TX/RX`;
    case 'timer':
      return `set the ${p.instance} prescaler and period for the PWM frequency, put ${roles} in PWM mode and start the counter`;
    case 'can':
      return `set the ${p.instance} bit timing and acceptance filters, then leave init mode`;
    case 'usb':
      return `enable the 48 MHz USB clock and start the USB device stack on ${p.instance}`;
    default:
      return `configure ${p.instance} per the reference manual`;
  }
}
