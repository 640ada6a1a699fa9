/** One nodal result block of a CalculiX .frd file (DISP, STRESS, NDTEMP, ...) at one increment. */
export interface FrdResultBlock {
  name: string;
  /** Step time (or frequency) of the increment. */
  time: number;
  /** Position of the block in the file (later blocks are later increments). */
  index: number;
  /** Node id → component values in the order CalculiX writes them. */
  values: Map<number, number[]>;
}

/** The mesh and results of a .frd file (ASCII format written by `*NODE FILE` / `*EL FILE`). */
export interface FrdFile {
  /** Node id → [x, y, z]. */
  nodes: Map<number, [number, number, number]>;
  /** Element id → node ids. */
  elements: Map<number, number[]>;
  blocks: FrdResultBlock[];
}

/**
 * Parse the ASCII .frd format: fixed columns, node/element ids in 10 characters after a 3-character record
 * key, values in 12-character fields (which may touch each other, e.g. `2.5E+00-1.3E-04`).
 */
export function parseFrd(text: string): FrdFile {
  const frd: FrdFile = { nodes: new Map(), elements: new Map(), blocks: [] };
  let section: 'nodes' | 'elements' | 'result' | null = null;
  let block: FrdResultBlock | null = null;
  let blockTime = 0;
  let element: number[] | null = null;

  for (const line of text.split('\n')) {
    const key = line.slice(0, 3);
    if (key === ' -1') {
      const id = Number(line.slice(3, 13));
      if (section === 'nodes') {
        const [x, y, z] = fields(line, 13);
        frd.nodes.set(id, [x, y, z]);
      } else if (section === 'elements') {
        element = [];
        frd.elements.set(id, element);
      } else if (section === 'result' && block) {
        block.values.set(id, fields(line, 13));
      }
      continue;
    }
    if (key === ' -2') {
      if (section === 'elements' && element) {
        for (let p = 3; p + 10 <= line.trimEnd().length; p += 10) element.push(Number(line.slice(p, p + 10)));
      }
      continue;
    }
    if (key === ' -3') {
      section = null;
      block = null;
      continue;
    }
    if (key === ' -4') {
      block = { name: line.slice(5, 13).trim(), time: blockTime, index: frd.blocks.length, values: new Map() };
      frd.blocks.push(block);
      section = 'result';
      continue;
    }
    const head = line.trimStart();
    if (/^2C/.test(head)) section = 'nodes';
    else if (/^3C/.test(head)) section = 'elements';
    else if (/^100C/.test(head)) blockTime = Number(line.slice(12, 24));
  }
  return frd;
}

/** Values of a line in 12-character fields from `start` on. */
function fields(line: string, start: number): number[] {
  const values: number[] = [];
  const end = line.trimEnd().length;
  for (let p = start; p < end; p += 12) values.push(Number(line.slice(p, p + 12)));
  return values;
}

/** The last block with this name (the final increment of the last step), or null. */
export function lastBlock(frd: FrdFile, name: string): FrdResultBlock | null {
  for (let i = frd.blocks.length - 1; i >= 0; i -= 1) if (frd.blocks[i].name === name) return frd.blocks[i];
  return null;
}

/** Von Mises equivalent stress of [sxx, syy, szz, sxy, syz, szx]. */
export function vonMises([sxx, syy, szz, sxy, syz, szx]: number[]): number {
  return Math.sqrt(0.5 * ((sxx - syy) ** 2 + (syy - szz) ** 2 + (szz - sxx) ** 2) + 3 * (sxy ** 2 + syz ** 2 + szx ** 2));
}

/** Nodes used by the given elements (elements missing from the results are skipped). */
export function nodesOfElements(frd: FrdFile, elementIds: Iterable<number>): Set<number> {
  const nodes = new Set<number>();
  for (const id of elementIds) for (const node of frd.elements.get(id) ?? []) nodes.add(node);
  return nodes;
}
