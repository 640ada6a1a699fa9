import type { McuPin, PinmapFinding } from './schema.js';

/** Case- and space-insensitive key for pin, signal, net and function names. */
export function key(name: string): string {
  return name.trim().toUpperCase();
}

/** Natural order: "PA2" before "PA10". */
export function naturalCompare(a: string, b: string): number {
  const pa = a.match(/\d+|\D+/g) ?? [];
  const pb = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const [x, y] = [pa[i], pb[i]];
    if (x === y) continue;
    const bothNumbers = /^\d/.test(x) && /^\d/.test(y);
    if (bothNumbers && Number(x) !== Number(y)) return Number(x) - Number(y);
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length || (a < b ? -1 : a > b ? 1 : 0);
}

const GPIO_FUNCTIONS = new Set(['GPIO_INPUT', 'GPIO_OUTPUT']);

export function isGpioFunction(fn: string): boolean {
  const k = key(fn);
  return k === 'GPIO' || GPIO_FUNCTIONS.has(k);
}

/** Functions an io pin offers, upper-cased, with the implicit GPIO directions added. */
export function pinFunctions(pin: McuPin): Set<string> {
  const functions = new Set(pin.functions.map(key));
  if (pin.kind === 'io' && ![...functions].some((f) => GPIO_FUNCTIONS.has(f))) {
    functions.add('GPIO_INPUT');
    functions.add('GPIO_OUTPUT');
  }
  return functions;
}

/** Whether `pin` can be used in `fn` ("GPIO" accepts either direction). */
export function supports(pin: McuPin, fn: string): boolean {
  const functions = pinFunctions(pin);
  const k = key(fn);
  if (k === 'GPIO') return functions.has('GPIO_INPUT') || functions.has('GPIO_OUTPUT');
  return functions.has(k);
}

/**
 * Family of a function, used to suggest alternatives when no pin offers the exact one:
 * "I2C1_SDA" -> "I2C_SDA", "ADC1_IN8" -> "ADC_IN", "USART2_TX" -> "UART_TX", "GPIO_OUTPUT" -> "GPIO_OUTPUT".
 */
export function functionFamily(fn: string): string {
  const k = key(fn);
  if (isGpioFunction(k)) return k;
  const cut = k.lastIndexOf('_');
  const instance = cut < 0 ? k : k.slice(0, cut);
  const role = cut < 0 ? '' : k.slice(cut + 1);
  let peripheral = instance.replace(/\d+$/, '');
  if (/^(LP)?U(S)?ART$/.test(peripheral)) peripheral = 'UART';
  return `${peripheral}_${role.replace(/\d+$/, '')}`;
}

/** Human name of the peripheral kind of a function, for messages: "ADC", "I2C SDA", "GPIO output". */
export function describeFamily(fn: string): string {
  const k = key(fn);
  if (k === 'GPIO_OUTPUT') return 'GPIO output';
  if (k === 'GPIO_INPUT') return 'GPIO input';
  if (k === 'GPIO') return 'GPIO';
  const [peripheral, role] = functionFamily(k).split('_');
  if (peripheral === 'ADC' || peripheral === 'DAC') return `${peripheral} channel`;
  if (peripheral === 'TIM') return 'timer channel';
  return role ? `${peripheral} ${role}` : peripheral;
}

export function finding(
  severity: PinmapFinding['severity'],
  code: PinmapFinding['code'],
  pin: string | null,
  signal: string | null,
  message: string,
  suggestedPins: string[] = [],
): PinmapFinding {
  return { severity, code, pin, signal, message, suggested_pins: suggestedPins };
}

const SEVERITY_ORDER = { error: 0, warning: 1 } as const;

function compareNullable(a: string | null, b: string | null, compare: (x: string, y: string) => number): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return compare(a, b);
}

/** Errors first, then pin (natural order, null last), signal, code. */
export function sortFindings(findings: PinmapFinding[]): PinmapFinding[] {
  const plain = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return [...findings].sort(
    (a, b) =>
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      compareNullable(a.pin, b.pin, naturalCompare) ||
      compareNullable(a.signal, b.signal, plain) ||
      plain(a.code, b.code),
  );
}
