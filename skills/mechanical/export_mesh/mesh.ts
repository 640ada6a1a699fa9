/** Reading a CalculiX .inp mesh: node and element counts, element volumes from the corner nodes. */

/** Nodes per element of the solid types gmsh exports, and how many of them are corners. */
const ELEMENT_TYPES: Record<string, { nodes: number; shape: 'tet' | 'hex' | 'wedge' }> = {
  C3D4: { nodes: 4, shape: 'tet' },
  C3D10: { nodes: 10, shape: 'tet' },
  C3D8: { nodes: 8, shape: 'hex' },
  C3D8R: { nodes: 8, shape: 'hex' },
  C3D8I: { nodes: 8, shape: 'hex' },
  C3D20: { nodes: 20, shape: 'hex' },
  C3D20R: { nodes: 20, shape: 'hex' },
  C3D6: { nodes: 6, shape: 'wedge' },
  C3D15: { nodes: 15, shape: 'wedge' },
};

/**
 * Each shape as tetrahedra over its corner nodes (0-based, Abaqus/CalculiX node order), all positive for a valid
 * element: the hexahedron as six tetrahedra around the diagonal 1-7, the wedge as three.
 */
const TETRAHEDRA: Record<'tet' | 'hex' | 'wedge', [number, number, number, number][]> = {
  tet: [[0, 1, 2, 3]],
  hex: [
    [0, 1, 2, 6],
    [0, 2, 3, 6],
    [0, 3, 7, 6],
    [0, 7, 4, 6],
    [0, 4, 5, 6],
    [0, 5, 1, 6],
  ],
  wedge: [
    [0, 1, 2, 3],
    [1, 2, 3, 4],
    [2, 3, 4, 5],
  ],
};

type Vec3 = [number, number, number];

export interface MeshSummary {
  nodeCount: number;
  elementCount: number;
  /** Sum of element volumes; null when an element type has no volume rule or a node is missing. */
  volume: number | null;
  smallestElementVolume: number | null;
  /** Elements with a non-positive corner tetrahedron (inverted, degenerate or badly distorted). */
  invertedElements: number[];
  /** Element types without a volume rule. */
  unknownTypes: string[];
}

/** Signed volume of the tetrahedron (a, b, c, d): positive when b-a, c-a, d-a form a right-handed triple. */
export function tetrahedronVolume(a: Vec3, b: Vec3, c: Vec3, d: Vec3): number {
  const u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  const v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
  const w = [d[0] - a[0], d[1] - a[1], d[2] - a[2]];
  return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) + u[2] * (v[0] * w[1] - v[1] * w[0])) / 6;
}

function numbers(line: string): number[] {
  return line
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map(Number);
}

function parameter(keywordLine: string, name: string): string | undefined {
  const match = new RegExp(`,\\s*${name}\\s*=\\s*([^,\\s]+)`, 'i').exec(keywordLine);
  return match?.[1];
}

/** Read the *NODE and *ELEMENT blocks of a CalculiX .inp text and measure the elements. */
export function summarizeMesh(inp: string): MeshSummary {
  const nodes = new Map<number, Vec3>();
  const elements: { id: number; type: string; nodes: number[] }[] = [];
  let block: 'node' | 'element' | 'other' = 'other';
  let elementType = '';
  let pending: number[] = [];

  const flushElement = () => {
    if (pending.length > 0) elements.push({ id: pending[0], type: elementType, nodes: pending.slice(1) });
    pending = [];
  };

  for (const rawLine of inp.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('**')) continue;
    if (line.startsWith('*')) {
      flushElement();
      const keyword = line.slice(1).split(',')[0].trim().toUpperCase();
      if (keyword === 'NODE') block = 'node';
      else if (keyword === 'ELEMENT') {
        block = 'element';
        elementType = (parameter(line, 'TYPE') ?? '').toUpperCase();
      } else block = 'other';
      continue;
    }
    if (block === 'node') {
      const [id, x = 0, y = 0, z = 0] = numbers(line);
      nodes.set(id, [x, y, z]);
    } else if (block === 'element') {
      pending.push(...numbers(line));
      const expected = ELEMENT_TYPES[elementType]?.nodes;
      // A data line ends an element unless it ends with a comma (continued) or the type needs more nodes.
      const complete = expected !== undefined ? pending.length >= expected + 1 : !line.endsWith(',');
      if (complete) flushElement();
    }
  }
  flushElement();

  let volume: number | null = 0;
  let smallest: number | null = null;
  const inverted: number[] = [];
  const unknownTypes = new Set<string>();
  for (const element of elements) {
    const spec = ELEMENT_TYPES[element.type];
    if (!spec) {
      unknownTypes.add(element.type);
      volume = null;
      continue;
    }
    const corners = element.nodes.slice(0, spec.nodes).map((id) => nodes.get(id));
    if (corners.length < spec.nodes || corners.some((corner) => corner === undefined)) {
      volume = null;
      continue;
    }
    const points = corners as Vec3[];
    let elementVolume = 0;
    let positive = true;
    for (const [a, b, c, d] of TETRAHEDRA[spec.shape]) {
      const part = tetrahedronVolume(points[a], points[b], points[c], points[d]);
      if (!(part > 0)) positive = false;
      elementVolume += part;
    }
    if (!positive) inverted.push(element.id);
    if (volume !== null) volume += elementVolume;
    smallest = smallest === null ? elementVolume : Math.min(smallest, elementVolume);
  }
  return {
    nodeCount: nodes.size,
    elementCount: elements.length,
    volume: elements.length === 0 ? null : volume,
    smallestElementVolume: volume === null ? null : smallest,
    invertedElements: inverted,
    unknownTypes: [...unknownTypes],
  };
}

/** Rounds to 10 significant digits (the .inp coordinates carry about 14). */
export function round10(value: number): number {
  return value === 0 ? 0 : Number(value.toPrecision(10));
}
