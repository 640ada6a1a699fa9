import { ToolFailure } from '../../common/src/index.js';
import { atomOf, child, children, parseSExpr } from './sexpr.js';
import type { SExpr } from './sexpr.js';
import type { BomRow } from './schema.js';

/** One part as the KiCad netlist (`kicad-cli sch export netlist`, kicadsexpr format) lists it. */
export interface NetlistComponent {
  reference: string;
  value: string;
  footprint: string;
  datasheet: string | null;
  description: string | null;
  libraryPart: string | null;
  /** Every field by its name, as the schematic spells it (Footprint, Datasheet, Description and user fields). */
  fields: Map<string, string>;
  dnp: boolean;
  excludedFromBom: boolean;
}

/** Fields that have their own column in a BOM row. */
const CORE_FIELDS = new Set(['reference', 'value', 'footprint', 'datasheet', 'description']);

/** The components of a kicadsexpr netlist. Power symbols (`#PWR01`, `#FLG01`) are not parts and are skipped. */
export function netlistComponents(text: string): NetlistComponent[] {
  const exported = parseSExpr(text).find((node): node is SExpr[] => Array.isArray(node) && node[0] === 'export');
  const components = exported ? child(exported, 'components') : null;
  if (!exported || !components)
    throw new ToolFailure('PROGRAM_FAILED', 'kicad-cli wrote a netlist without an (export (components ...)) section');
  const parts: NetlistComponent[] = [];
  for (const comp of children(components, 'comp')) {
    const reference = atomOf(comp, 'ref');
    if (!reference) throw new ToolFailure('PROGRAM_FAILED', 'kicad-cli wrote a netlist component without a reference');
    if (reference.startsWith('#')) continue;
    const fields = new Map<string, string>();
    for (const field of children(child(comp, 'fields') ?? [], 'field')) {
      const name = atomOf(field, 'name');
      const value = field.find((item, index) => index > 0 && typeof item === 'string');
      if (name) fields.set(name, typeof value === 'string' ? value : '');
    }
    const properties = new Set(children(comp, 'property').map((property) => atomOf(property, 'name')));
    const libsource = child(comp, 'libsource');
    const lib = libsource ? atomOf(libsource, 'lib') : null;
    const part = libsource ? atomOf(libsource, 'part') : null;
    const datasheet = atomOf(comp, 'datasheet') ?? fields.get('Datasheet') ?? null;
    const description = fields.get('Description') || (libsource ? atomOf(libsource, 'description') : null) || null;
    parts.push({
      reference,
      value: atomOf(comp, 'value') ?? '',
      footprint: atomOf(comp, 'footprint') ?? fields.get('Footprint') ?? '',
      datasheet: datasheet && datasheet !== '~' ? datasheet : null,
      description,
      libraryPart: part ? (lib ? `${lib}:${part}` : part) : null,
      fields,
      dnp: properties.has('dnp'),
      excludedFromBom: properties.has('exclude_from_bom'),
    });
  }
  return parts;
}

/** R2 before R10, and U1A-style suffixes after their number. */
export function compareReferences(a: string, b: string): number {
  const split = (reference: string) => {
    const match = /^(.*?)(\d+)(\D*)$/.exec(reference);
    return match ? { prefix: match[1], number: Number(match[2]), suffix: match[3] } : { prefix: reference, number: -1, suffix: '' };
  };
  const x = split(a);
  const y = split(b);
  if (x.prefix !== y.prefix) return x.prefix < y.prefix ? -1 : 1;
  if (x.number !== y.number) return x.number - y.number;
  return x.suffix < y.suffix ? -1 : x.suffix > y.suffix ? 1 : 0;
}

/** A field of a part by name, case-insensitively, including the core ones. */
function fieldOf(part: NetlistComponent, name: string): string {
  switch (name.toLowerCase()) {
    case 'value':
      return part.value;
    case 'footprint':
      return part.footprint;
    case 'datasheet':
      return part.datasheet ?? '';
    case 'description':
      return part.description ?? '';
    default:
      for (const [field, value] of part.fields) if (field.toLowerCase() === name.toLowerCase()) return value;
      return '';
  }
}

/** Values of `pick` over the parts: the shared one, else the distinct ones in part order joined with ", ". */
function joined(parts: NetlistComponent[], pick: (part: NetlistComponent) => string): { value: string; mixed: boolean } {
  const values = [...new Set(parts.map(pick))];
  return { value: values.join(', '), mixed: values.length > 1 };
}

/**
 * Group parts into BOM rows: parts whose `groupBy` fields are all equal (and that agree on DNP) share a row.
 * Rows come in the order of their first reference; references within a row in natural order.
 */
export function groupBom(parts: NetlistComponent[], groupBy: string[]): BomRow[] {
  const sorted = [...parts].sort((a, b) => compareReferences(a.reference, b.reference));
  const groups = new Map<string, NetlistComponent[]>();
  for (const part of sorted) {
    const key = JSON.stringify([part.dnp, ...(groupBy.length === 0 ? [part.reference] : groupBy.map((name) => fieldOf(part, name)))]);
    const group = groups.get(key);
    if (group) group.push(part);
    else groups.set(key, [part]);
  }
  return [...groups.values()].map((members) => {
    const mixed: string[] = [];
    const value = joined(members, (part) => part.value);
    const footprint = joined(members, (part) => part.footprint);
    const datasheet = joined(members, (part) => part.datasheet ?? '');
    const description = joined(members, (part) => part.description ?? '');
    if (value.mixed) mixed.push('Value');
    if (footprint.mixed) mixed.push('Footprint');
    if (datasheet.mixed) mixed.push('Datasheet');
    if (description.mixed) mixed.push('Description');
    const fields: Record<string, string> = {};
    const names = [...new Set(members.flatMap((part) => [...part.fields.keys()]))].filter((name) => !CORE_FIELDS.has(name.toLowerCase()));
    for (const name of names) {
      const values = new Set(members.map((part) => part.fields.get(name) ?? ''));
      if (values.size === 1) {
        const [only] = values;
        if (only !== '') fields[name] = only;
      } else mixed.push(name);
    }
    const library = joined(members, (part) => part.libraryPart ?? '');
    return {
      references: members.map((part) => part.reference),
      value: value.value,
      footprint: footprint.value,
      quantity: members.length,
      dnp: members[0].dnp,
      description: description.mixed ? description.value : members[0].description,
      datasheet: datasheet.mixed ? datasheet.value : members[0].datasheet,
      library_part: library.value === '' ? null : library.value,
      fields,
      mixed_fields: mixed,
    };
  });
}

/** Every field name found on the parts, besides the core ones, in first-seen order. */
export function fieldNames(parts: NetlistComponent[]): string[] {
  return [...new Set(parts.flatMap((part) => [...part.fields.keys()]))].filter((name) => !CORE_FIELDS.has(name.toLowerCase()));
}
