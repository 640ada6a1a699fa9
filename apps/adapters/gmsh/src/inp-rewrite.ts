/** CalculiX face numbering (corner nodes, 1-based) per element family. */
const FACES: Record<string, number[][]> = {
  tet: [
    [1, 2, 3],
    [1, 4, 2],
    [2, 4, 3],
    [3, 4, 1],
  ],
  hex: [
    [1, 2, 3, 4],
    [5, 8, 7, 6],
    [1, 5, 6, 2],
    [2, 6, 7, 3],
    [3, 7, 8, 4],
    [4, 8, 5, 1],
  ],
  wedge: [
    [1, 2, 3],
    [4, 5, 6],
    [1, 2, 5, 4],
    [2, 3, 6, 5],
    [3, 1, 4, 6],
  ],
};

function familyOf(type: string): keyof typeof FACES | null {
  if (/^C3D(4|10)/.test(type)) return 'tet';
  if (/^C3D(8|20)/.test(type)) return 'hex';
  if (/^C3D(6|15)/.test(type)) return 'wedge';
  return null;
}

/** Corner nodes of a 2-D element (triangles: 3, quadrilaterals: 4), or null for other types. */
function cornersOf2d(type: string, nodes: number[]): number[] | null {
  if (/^(CPS|CPE|CAX|S|M3D|DS)(3|6)/.test(type)) return nodes.slice(0, 3);
  if (/^(CPS|CPE|CAX|S|M3D|DS)(4|8)/.test(type)) return nodes.slice(0, 4);
  return null;
}

interface InpElementBlock {
  type: string;
  elset: string;
  elements: Map<number, number[]>;
}

interface ParsedInp {
  nodeLines: string[];
  nodeCount: number;
  blocks: InpElementBlock[];
  elsets: Map<string, number[]>;
  nsets: Map<string, number[]>;
}

export interface CalculixMesh {
  inp: string;
  nodeCount: number;
  elementCount: number;
  elementTypes: Record<string, number>;
  elementSets: { name: string; element_count: number }[];
  nodeSets: { name: string; node_count: number }[];
  surfaces: { name: string; face_count: number }[];
  /** 2-D and 1-D element blocks left out (CalculiX would treat them as shells and plane elements). */
  droppedElements: number;
}

/**
 * Turn gmsh's INP export into a CalculiX-ready deck fragment: keep the nodes and the 3-D elements, keep element
 * sets restricted to 3-D elements, keep node sets (physical groups, from Mesh.SaveGroupsOfNodes), and turn each
 * set of surface elements (a physical surface) into a face-based `*SURFACE` of the solid elements, for *DSLOAD
 * and contact. Adds ELSET=EALL with every solid element.
 */
export function toCalculixMesh(gmshInp: string, heading: string): CalculixMesh {
  const parsed = parseInp(gmshInp);
  const solid = parsed.blocks.filter((block) => familyOf(block.type) !== null);
  const solidIds = new Set<number>();
  for (const block of solid) for (const id of block.elements.keys()) solidIds.add(id);
  if (solidIds.size === 0) {
    throw new Error(
      'gmsh produced no 3-D elements: the geometry needs a volume, and when physical groups are defined gmsh only saves ' +
        'elements of physical groups, so add a Physical Volume',
    );
  }

  // Face lookup: sorted corner nodes → "element, S<face>".
  const faces = new Map<string, string>();
  for (const block of solid) {
    const family = familyOf(block.type);
    if (!family) continue;
    for (const [id, nodes] of block.elements) {
      FACES[family].forEach((corners, face) => {
        faces.set(key(corners.map((corner) => nodes[corner - 1])), `${id}, S${face + 1}`);
      });
    }
  }
  const all2d = new Map<number, number[]>();
  for (const block of parsed.blocks) {
    if (familyOf(block.type) !== null) continue;
    for (const [id, nodes] of block.elements) {
      const corners = cornersOf2d(block.type, nodes);
      if (corners) all2d.set(id, corners);
    }
  }

  const lines: string[] = ['*HEADING', heading, '*NODE, NSET=NALL', ...parsed.nodeLines];
  const elementTypes: Record<string, number> = {};
  for (const block of solid) {
    lines.push(`*ELEMENT, TYPE=${block.type}, ELSET=${block.elset}`);
    for (const [id, nodes] of block.elements) lines.push(...elementLines(id, nodes));
    elementTypes[block.type] = (elementTypes[block.type] ?? 0) + block.elements.size;
  }

  const elementSets: CalculixMesh['elementSets'] = solid.map((block) => ({ name: block.elset, element_count: block.elements.size }));
  const surfaces: CalculixMesh['surfaces'] = [];
  const surfaceLines: string[] = [];
  for (const [name, members] of parsed.elsets) {
    const kept = members.filter((id) => solidIds.has(id));
    if (kept.length > 0) {
      lines.push(`*ELSET, ELSET=${name}`, ...idLines(kept));
      elementSets.push({ name, element_count: kept.length });
      continue;
    }
    const faceRefs = members.flatMap((id) => {
      const corners = all2d.get(id);
      const face = corners && faces.get(key(corners));
      return face ? [face] : [];
    });
    if (faceRefs.length > 0) {
      surfaceLines.push(`*SURFACE, NAME=${name}, TYPE=ELEMENT`, ...faceRefs);
      surfaces.push({ name, face_count: faceRefs.length });
    }
  }
  lines.push('*ELSET, ELSET=EALL', ...idLines([...solidIds]));
  elementSets.push({ name: 'EALL', element_count: solidIds.size });

  const nodeSets: CalculixMesh['nodeSets'] = [{ name: 'NALL', node_count: parsed.nodeCount }];
  for (const [name, members] of parsed.nsets) {
    lines.push(`*NSET, NSET=${name}`, ...idLines(members));
    nodeSets.push({ name, node_count: members.length });
  }
  lines.push(...surfaceLines);

  const droppedElements = parsed.blocks
    .filter((block) => familyOf(block.type) === null)
    .reduce((sum, block) => sum + block.elements.size, 0);
  return {
    inp: `${lines.join('\n')}\n`,
    nodeCount: parsed.nodeCount,
    elementCount: solidIds.size,
    elementTypes,
    elementSets,
    nodeSets,
    surfaces,
    droppedElements,
  };
}

function parseInp(text: string): ParsedInp {
  const result: ParsedInp = { nodeLines: [], nodeCount: 0, blocks: [], elsets: new Map(), nsets: new Map() };
  let mode: 'node' | 'element' | 'elset' | 'nset' | null = null;
  let block: InpElementBlock | null = null;
  let set: number[] = [];
  let pending: number[] | null = null; // element whose node list continues on the next line
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('**')) continue;
    if (line.startsWith('*')) {
      const params = new Map(
        line
          .slice(1)
          .split(',')
          .slice(1)
          .map((part) => {
            const [k, v = ''] = part.split('=');
            return [k.trim().toUpperCase(), v.trim()] as const;
          }),
      );
      const keyword = line.slice(1).split(',')[0].trim().toUpperCase();
      pending = null;
      mode = null;
      if (keyword === 'NODE') mode = 'node';
      else if (keyword === 'ELEMENT') {
        block = { type: (params.get('TYPE') ?? '').toUpperCase(), elset: params.get('ELSET') ?? 'ELEMENTS', elements: new Map() };
        result.blocks.push(block);
        mode = 'element';
      } else if (keyword === 'ELSET' || keyword === 'NSET') {
        set = [];
        (keyword === 'ELSET' ? result.elsets : result.nsets).set(params.get(keyword) ?? 'SET', set);
        mode = keyword === 'ELSET' ? 'elset' : 'nset';
      }
      continue;
    }
    const values = line
      .split(',')
      .map((value) => value.trim())
      .filter(Boolean);
    if (mode === 'node') {
      result.nodeLines.push(line);
      result.nodeCount++;
    } else if (mode === 'element' && block) {
      const numbers = values.map(Number);
      if (pending) pending.push(...numbers);
      else {
        pending = numbers.slice(1);
        block.elements.set(numbers[0], pending);
      }
      if (!line.endsWith(',')) pending = null;
    } else if (mode === 'elset' || mode === 'nset') {
      set.push(...values.map(Number).filter(Number.isInteger));
    }
  }
  return result;
}

function key(nodes: number[]): string {
  return [...nodes].sort((a, b) => a - b).join(' ');
}

/** An element card: at most 16 entries per line (CalculiX's limit), continued lines end with a comma. */
function elementLines(id: number, nodes: number[]): string[] {
  const entries = [id, ...nodes];
  const lines: string[] = [];
  for (let p = 0; p < entries.length; p += 16) {
    const last = p + 16 >= entries.length;
    lines.push(`${entries.slice(p, p + 16).join(', ')}${last ? '' : ','}`);
  }
  return lines;
}

function idLines(ids: number[]): string[] {
  const lines: string[] = [];
  for (let p = 0; p < ids.length; p += 16) lines.push(`${ids.slice(p, p + 16).join(', ')},`);
  return lines;
}
