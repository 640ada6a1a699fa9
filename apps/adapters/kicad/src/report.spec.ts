import { describe, expect, it } from '@jest/globals';
import { ercPositionScale, ercViolations, parseDrcItem, parseDrcJson, parseErcItem, parseErcJson, parseReportPositions } from './report.js';

// The shape kicad-cli 9.0.8 writes: positions 100 times too small in the JSON report, right in the text report.
const ERC_JSON = JSON.stringify({
  $schema: 'https://schemas.kicad.org/erc.v1.json',
  coordinate_units: 'mm',
  kicad_version: '9.0.8',
  sheets: [
    {
      path: '/',
      uuid_path: '/x',
      violations: [
        {
          description: 'Pin not connected',
          severity: 'error',
          type: 'pin_not_connected',
          items: [{ description: 'Symbol D2 Pin 1 [K, Passive, Line]', pos: { x: 0.889, y: 0.7366 }, uuid: 'u1' }],
        },
        {
          description: 'Label not connected',
          severity: 'warning',
          type: 'label_dangling',
          items: [{ description: "Label 'VIN'", pos: { x: 0.4064, y: 0.508 }, uuid: 'u2' }],
        },
      ],
    },
  ],
});
const ERC_TEXT = `ERC report (2026-01-01T00:00:00+0000, Encoding UTF8)

***** Sheet /
[pin_not_connected]: Pin not connected
    ; error
    @(88.90 mm, 73.66 mm): Symbol D2 Pin 1 [K, Passive, Line]
[label_dangling]: Label not connected
    ; warning
    @(40.64 mm, 50.80 mm): Label 'VIN'

 ** ERC messages: 2  Errors 1  Warnings 1
`;

describe('ERC positions', () => {
  it('reads the factor between the JSON and the text report (100 for KiCad 9) and applies it', () => {
    const parsed = parseErcJson(ERC_JSON);
    const { scale } = ercPositionScale(parsed, parseReportPositions(ERC_TEXT));
    expect(scale).toBe(100);
    const [pin, label] = ercViolations(parsed, scale);
    expect(pin.items[0]).toEqual({
      description: 'Symbol D2 Pin 1 [K, Passive, Line]',
      reference: 'D2',
      pin: '1',
      pin_name: 'K',
      pin_type: 'Passive',
      label: null,
      position_mm: { x: 88.9, y: 73.66 },
      uuid: 'u1',
    });
    expect(label.items[0]).toMatchObject({ reference: null, label: 'VIN', position_mm: { x: 40.64, y: 50.8 } });
  });

  it('takes the JSON as it is once KiCad writes millimetres there', () => {
    const fixed = ERC_JSON.replace('0.889', '88.9').replace('0.7366', '73.66').replace('0.4064', '40.64').replace('0.508', '50.8');
    expect(ercPositionScale(parseErcJson(fixed), parseReportPositions(ERC_TEXT)).scale).toBe(1);
  });

  it('gives no positions when the two reports do not match', () => {
    const parsed = parseErcJson(ERC_JSON);
    const short = ercPositionScale(parsed, parseReportPositions(ERC_TEXT).slice(0, 1));
    expect(short).toEqual({ scale: null, reason: 'the text report lists 1 positioned items, the JSON report 2' });
    const other = ercPositionScale(parsed, parseReportPositions(ERC_TEXT.replace('73.66', '80.00')));
    expect(other.scale).toBeNull();
    expect(ercViolations(parsed, null)[0].items[0].position_mm).toBeNull();
  });

  it('reads pins without a name, and refuses a report it does not understand', () => {
    expect(parseErcItem({ description: 'Symbol R12 Pin 2 [Passive, Line]' }, 100)).toMatchObject({
      reference: 'R12',
      pin: '2',
      pin_name: null,
      pin_type: 'Passive',
      position_mm: null,
      uuid: null,
    });
    expect(() => parseErcJson('{"sheets": 3}')).toThrow("kicad-cli's ERC report has a shape this adapter does not understand (at sheets");
    expect(() => parseErcJson('not json')).toThrow('is not JSON');
  });
});

describe('DRC items', () => {
  it.each([
    ['Pad 1 [GND] of TP1 on F.Cu', { reference: 'TP1', pad: '1', net: 'GND', layer: 'F.Cu' }],
    ['Track [SIG_B] on F.Cu, length 10.0000 mm', { reference: null, pad: null, net: 'SIG_B', layer: 'F.Cu' }],
    ['Via [GND] on F.Cu - B.Cu', { reference: null, net: 'GND', layer: 'F.Cu - B.Cu' }],
    ['Footprint R1', { reference: 'R1', pad: null, net: null, layer: null }],
    ['Pad 2 [<no net>] of J1 on F.Cu', { reference: 'J1', pad: '2', net: null }],
  ])('reads %p', (description, expected) => {
    expect(parseDrcItem({ description })).toMatchObject(expected);
  });

  it('reads the limit and the actual value of a violation', () => {
    const report = parseDrcJson(
      JSON.stringify({
        coordinate_units: 'mm',
        violations: [
          {
            description: "Clearance violation (netclass 'Default' clearance 0.2000 mm; actual 0.1250 mm)",
            severity: 'error',
            type: 'clearance',
            items: [],
          },
          { description: 'Courtyards overlap', severity: 'warning', type: 'courtyards_overlap', items: [] },
        ],
      }),
    );
    expect(report.violations.map((v) => [v.limit_mm, v.actual_mm])).toEqual([
      [0.2, 0.125],
      [null, null],
    ]);
    expect(report.unconnected).toEqual([]);
  });

  it('refuses coordinates in other units and unknown severities', () => {
    expect(() => parseDrcJson('{"coordinate_units": "mils"}')).toThrow("coordinates in 'mils'");
    expect(() => parseDrcJson('{"violations": [{"description": "x", "severity": "fatal", "type": "x"}]}')).toThrow(
      "unknown severity 'fatal'",
    );
  });
});
