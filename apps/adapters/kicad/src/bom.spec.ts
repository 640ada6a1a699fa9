import { describe, expect, it } from '@jest/globals';
import { compareReferences, groupBom, netlistComponents } from './bom.js';
import type { NetlistComponent } from './bom.js';
import { projectNameOf, referencedSheetFiles } from './design-files.js';
import { parseSExpr } from './sexpr.js';

const NETLIST = `(export (version "E")
  (design (source "/tmp/x/design.kicad_sch"))
  (components
    (comp (ref "R10") (value "10k") (footprint "Resistor_SMD:R_0603_1608Metric") (datasheet "~")
      (fields (field (name "Footprint") "Resistor_SMD:R_0603_1608Metric") (field (name "MPN") "RC0603FR-0710KL") (field (name "Description")))
      (libsource (lib "Device") (part "R") (description "Resistor"))
      (property (name "Sheetname") (value "")))
    (comp (ref "R2") (value "10k") (footprint "Resistor_SMD:R_0603_1608Metric") (datasheet "~")
      (fields (field (name "MPN") "RC0603FR-0710KL"))
      (libsource (lib "Device") (part "R") (description "Resistor")))
    (comp (ref "C1") (value "100n") (footprint "Capacitor_SMD:C_0603_1608Metric")
      (libsource (lib "Device") (part "C") (description "Unpolarized capacitor"))
      (property (name "dnp")))
    (comp (ref "C2") (value "100n") (footprint "Capacitor_SMD:C_0603_1608Metric") (datasheet "https://example.com/c.pdf")
      (fields (field (name "Description") "X7R \\"50 V\\""))
      (libsource (lib "Device") (part "C") (description "Unpolarized capacitor")))
    (comp (ref "#PWR01") (value "GND"))
    (comp (ref "TP1") (value "TP") (property (name "exclude_from_bom")))))
`;

describe('netlistComponents', () => {
  it('reads parts with their fields and flags, skipping power symbols', () => {
    const parts = netlistComponents(NETLIST);
    expect(parts.map((part) => part.reference)).toEqual(['R10', 'R2', 'C1', 'C2', 'TP1']);
    expect(parts[0]).toMatchObject({ value: '10k', datasheet: null, description: 'Resistor', libraryPart: 'Device:R', dnp: false });
    expect(parts[0].fields.get('MPN')).toBe('RC0603FR-0710KL');
    expect(parts[2].dnp).toBe(true);
    expect(parts[3]).toMatchObject({ datasheet: 'https://example.com/c.pdf', description: 'X7R "50 V"' });
    expect(parts[4].excludedFromBom).toBe(true);
  });

  it('refuses a netlist without components', () => {
    expect(() => netlistComponents('(export (version "E"))')).toThrow('without an (export (components ...)) section');
    expect(() => parseSExpr('(export (a "b"')).toThrow("2 unclosed '('");
  });
});

describe('groupBom', () => {
  const parts = netlistComponents(NETLIST).filter((part) => !part.excludedFromBom);

  it('groups equal value and footprint, keeps DNP parts apart, orders references naturally', () => {
    const rows = groupBom(parts, ['Value', 'Footprint']);
    expect(rows.map((row) => [row.references, row.quantity, row.dnp])).toEqual([
      [['C1'], 1, true],
      [['C2'], 1, false],
      [['R2', 'R10'], 2, false],
    ]);
    expect(rows[2]).toMatchObject({ value: '10k', fields: { MPN: 'RC0603FR-0710KL' }, mixed_fields: [], library_part: 'Device:R' });
  });

  it('reports fields that differ within a row', () => {
    const fitted = parts.filter((part: NetlistComponent) => !part.dnp);
    const [row] = groupBom(fitted, ['Library']); // a field no part has: everything in one row
    expect(row.references).toEqual(['C2', 'R2', 'R10']);
    expect(row.value).toBe('100n, 10k');
    expect(row.mixed_fields).toEqual(['Value', 'Footprint', 'Datasheet', 'Description', 'MPN']);
  });

  it('sorts references by prefix, number and unit suffix', () => {
    expect(['R10', 'C1', 'R2', 'U1B', 'U1A', 'R1'].sort(compareReferences)).toEqual(['C1', 'R1', 'R2', 'R10', 'U1A', 'U1B']);
  });
});

describe('design files', () => {
  it('names the files after the project recorded in the schematic', () => {
    expect(projectNameOf('(kicad_sch (symbol (instances (project "led_indicator" (path "/x")))))')).toBe('led_indicator');
    expect(projectNameOf('(kicad_sch (symbol (instances (project "../evil" (path "/x")))))')).toBe('design');
    expect(projectNameOf('(kicad_sch)')).toBe('design');
  });

  it('finds the sheet files a schematic refers to', () => {
    const root =
      '(sheet (property "Sheetname" "A") (property "Sheetfile" "a.kicad_sch")) (sheet (property "Sheet file" "sub/b.kicad_sch"))';
    expect(referencedSheetFiles(root)).toEqual(['a.kicad_sch', 'sub/b.kicad_sch']);
  });
});
