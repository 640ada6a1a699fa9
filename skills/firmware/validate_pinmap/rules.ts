import { describeFamily, finding, functionFamily, isGpioFunction, key, naturalCompare, pinFunctions, supports } from './pins.js';
import type { McuPin, PinAssignment, PinmapFinding, ValidatePinmapInput } from './schema.js';

/** Lookup tables shared by the checks. */
export interface Board {
  partNumber: string;
  /** MCU pins in input order. */
  pinList: McuPin[];
  /** Pin key -> pin. */
  pins: Map<string, McuPin>;
  /** Pin keys the pin map assigns. */
  assigned: Set<string>;
  /** Signal keys the pin map assigns. */
  assignedSignals: Set<string>;
  /** Pin key -> nets wired to it in the schematic. */
  netsOnPin: Map<string, string[]>;
  /** Net key -> MCU pin names it is wired to. */
  pinsOfNet: Map<string, string[]>;
}

function push<K, V>(map: Map<K, V[]>, k: K, v: V): void {
  const list = map.get(k);
  if (list) list.push(v);
  else map.set(k, [v]);
}

/** Problems that make the input unusable (checked as preconditions). */
export function findInputProblems(input: ValidatePinmapInput): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const pin of input.mcu.pins) {
    if (seen.has(key(pin.name))) problems.push(`MCU pin '${pin.name}' is listed more than once; pin names must be unique`);
    seen.add(key(pin.name));
  }
  return problems;
}

export function buildBoard(input: ValidatePinmapInput): Board {
  const pins = new Map(input.mcu.pins.map((p) => [key(p.name), p] as const));
  const netsOnPin = new Map<string, string[]>();
  const pinsOfNet = new Map<string, string[]>();
  for (const c of input.schematic_nets ?? []) {
    push(netsOnPin, key(c.pin), c.net);
    push(pinsOfNet, key(c.net), pins.get(key(c.pin))?.name ?? c.pin);
  }
  return {
    partNumber: input.mcu.part_number,
    pinList: input.mcu.pins,
    pins,
    assigned: new Set(input.pin_map.map((a) => key(a.pin))),
    assignedSignals: new Set(input.pin_map.map((a) => key(a.signal))),
    netsOnPin,
    pinsOfNet,
  };
}

/** Free pins (io, not reserved, unassigned, unwired) offering `fn`, else ones offering the same kind of function. */
export function suggestPins(board: Board, fn: string): { pins: string[]; text: string } {
  const free = board.pinList.filter(
    (p) => p.kind === 'io' && !p.reserved_for && !board.assigned.has(key(p.name)) && !board.netsOnPin.has(key(p.name)),
  );
  const pick = (list: McuPin[]) =>
    list
      .map((p) => p.name)
      .sort(naturalCompare)
      .slice(0, 5);
  const exact = pick(free.filter((p) => supports(p, fn)));
  if (exact.length > 0) return { pins: exact, text: ` Free pins that offer ${fn}: ${exact.join(', ')}.` };
  const busy = pick(board.pinList.filter((p) => p.kind === 'io' && supports(p, fn)));
  const taken = busy.length > 0 ? ` (${fn} is only on ${busy.join(', ')}, already in use or reserved)` : '';
  const family = functionFamily(fn);
  const similar = pick(free.filter((p) => [...pinFunctions(p)].some((f) => functionFamily(f) === family)));
  if (similar.length > 0) {
    return {
      pins: similar,
      text: ` No free pin offers ${fn}${taken}; free pins with another ${describeFamily(fn)}: ${similar.join(', ')}.`,
    };
  }
  return { pins: [], text: ` No free pin offers ${fn} or another ${describeFamily(fn)}${taken}.` };
}

function offered(pin: McuPin): string {
  return [...pinFunctions(pin)].sort(naturalCompare).join(', ') || 'nothing';
}

/** Pin existence, kind, double use, function support and function conflicts, in pin map order. */
export function checkAssignments(input: ValidatePinmapInput, board: Board): PinmapFinding[] {
  const findings: PinmapFinding[] = [];
  const firstOnPin = new Map<string, PinAssignment>();
  const firstWithFunction = new Map<string, PinAssignment>();
  const part = board.partNumber;

  for (const a of input.pin_map) {
    const pin = board.pins.get(key(a.pin));
    const what = `${a.signal} (${a.function})`;
    if (!pin) {
      const s = suggestPins(board, a.function);
      findings.push(
        finding(
          'error',
          'unknown_pin',
          a.pin,
          a.signal,
          `Signal ${what} is assigned to pin ${a.pin}, which the ${part} does not have; check the pin name against the datasheet.${s.text}`,
          s.pins,
        ),
      );
      continue;
    }
    const previous = firstOnPin.get(key(a.pin));
    if (previous) {
      if (key(previous.signal) === key(a.signal) && key(previous.function) === key(a.function)) {
        findings.push(
          finding(
            'warning',
            'duplicate_assignment',
            pin.name,
            a.signal,
            `Signal ${what} is listed twice on ${pin.name}; remove the duplicate entry.`,
          ),
        );
      } else {
        const s = suggestPins(board, a.function);
        findings.push(
          finding(
            'error',
            'pin_double_use',
            pin.name,
            a.signal,
            `Pin ${pin.name} is already assigned to ${previous.signal} (${previous.function}); ${what} cannot use it too. Move one of them.${s.text}`,
            s.pins,
          ),
        );
      }
      continue;
    }
    firstOnPin.set(key(a.pin), a);

    if (pin.kind !== 'io') {
      const s = suggestPins(board, a.function);
      findings.push(
        finding(
          'error',
          'reserved_pin',
          pin.name,
          a.signal,
          `Pin ${pin.name} is a ${pin.kind} pin and cannot carry ${what}; move the signal to an io pin.${s.text}`,
          s.pins,
        ),
      );
      continue;
    }
    if (pin.reserved_for) {
      const s = suggestPins(board, a.function);
      findings.push(
        finding(
          'warning',
          'reserved_pin',
          pin.name,
          a.signal,
          `Pin ${pin.name} is reserved for ${pin.reserved_for}; using it for ${what} gives that up. Confirm this is intended or move the signal.${s.text}`,
          s.pins,
        ),
      );
    }
    if (!supports(pin, a.function)) {
      const s = suggestPins(board, a.function);
      findings.push(
        finding(
          'error',
          'function_unsupported',
          pin.name,
          a.signal,
          `Pin ${pin.name} does not support ${a.function} (no such ${describeFamily(a.function)} on this pin), needed by ${a.signal}; ` +
            `it offers: ${offered(pin)}.${s.text}`,
          s.pins,
        ),
      );
      continue;
    }
    if (isGpioFunction(a.function)) continue;
    const other = firstWithFunction.get(key(a.function));
    if (other) {
      findings.push(
        finding(
          'error',
          'function_conflict',
          pin.name,
          a.signal,
          `${a.function} is already routed to ${board.pins.get(key(other.pin))?.name ?? other.pin} for ${other.signal}; ` +
            `a peripheral function can be routed to one pin only, so ${a.signal} on ${pin.name} cannot use it. Use another instance of the peripheral.`,
        ),
      );
    } else {
      firstWithFunction.set(key(a.function), a);
    }
  }
  return findings;
}

/** Cross-checks between the pin map and the schematic's MCU connections. */
export function checkSchematic(input: ValidatePinmapInput, board: Board): PinmapFinding[] {
  const connections = input.schematic_nets;
  if (connections === undefined) return [];
  const findings: PinmapFinding[] = [];
  for (const c of connections) {
    if (!board.pins.has(key(c.pin))) {
      findings.push(
        finding(
          'error',
          'unknown_pin',
          c.pin,
          c.net,
          `The schematic wires net ${c.net} to pin ${c.pin}, which the ${board.partNumber} does not have; check the MCU symbol and the pin list.`,
        ),
      );
    }
  }
  for (const a of input.pin_map) {
    const pin = board.pins.get(key(a.pin));
    if (!pin) continue;
    const netPins = board.pinsOfNet.get(key(a.signal)) ?? [];
    if (netPins.some((p) => key(p) === key(pin.name))) continue;
    if (netPins.length > 0) {
      findings.push(
        finding(
          'error',
          'pin_mismatch',
          pin.name,
          a.signal,
          `Signal ${a.signal} is assigned to ${pin.name}, but the schematic wires net ${a.signal} to ${netPins.join(', ')}; ` +
            `change the pin map to ${netPins.join(' or ')}, or fix the schematic.`,
          [...netPins].sort(naturalCompare).slice(0, 5),
        ),
      );
      continue;
    }
    if (pin.kind !== 'io') continue; // already an error of its own
    const nets = board.netsOnPin.get(key(pin.name)) ?? [];
    if (nets.length > 0) {
      findings.push(
        finding(
          'error',
          'pin_mismatch',
          pin.name,
          a.signal,
          `Pin ${pin.name} carries net ${nets.join(', ')} in the schematic, not ${a.signal}; if it is the same signal under another name, ` +
            `rename it to match the net, otherwise move ${a.signal} to the pin its net is wired to.`,
        ),
      );
    } else {
      findings.push(
        finding(
          'warning',
          'signal_not_in_schematic',
          pin.name,
          a.signal,
          `Signal ${a.signal} on ${pin.name} matches no schematic net and the pin is not wired; check the net name or drop the assignment.`,
        ),
      );
    }
  }
  const reported = new Set<string>();
  for (const c of connections) {
    const pin = board.pins.get(key(c.pin));
    if (!pin || pin.kind !== 'io' || pin.reserved_for) continue;
    if (board.assignedSignals.has(key(c.net)) || board.assigned.has(key(pin.name))) continue;
    const id = `${key(c.net)}@${key(pin.name)}`;
    if (reported.has(id)) continue;
    reported.add(id);
    findings.push(
      finding(
        'error',
        'net_unassigned',
        pin.name,
        c.net,
        `Net ${c.net} is wired to ${pin.name} in the schematic but the pin map leaves it unassigned; add ${c.net} on ${pin.name} ` +
          `with the function it needs (it offers: ${offered(pin)}).`,
        [pin.name],
      ),
    );
  }
  return findings;
}
