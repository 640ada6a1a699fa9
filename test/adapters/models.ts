// Small CalculiX models written for the adapter tests: a structured brick mesh of a bar.

export interface BarMesh {
  /** Length along x, width along y, height along z (model length unit). */
  length: number;
  width: number;
  height: number;
  /** Elements along x, y, z. */
  nx: number;
  ny: number;
  nz: number;
}

/** Node id of grid point (i, j, k). */
function nodeId(mesh: BarMesh, i: number, j: number, k: number): number {
  return 1 + i + (mesh.nx + 1) * (j + (mesh.ny + 1) * k);
}

/** `*NODE` and `*ELEMENT` cards of a brick mesh; elements go into ELSET=BAR, and into `elsets` by their x index. */
function barMeshCards(mesh: BarMesh, type: string, elsets: Record<string, (i: number) => boolean> = {}): string[] {
  const lines = ['*NODE, NSET=NALL'];
  for (let k = 0; k <= mesh.nz; k++)
    for (let j = 0; j <= mesh.ny; j++)
      for (let i = 0; i <= mesh.nx; i++) {
        lines.push(
          `${nodeId(mesh, i, j, k)}, ${(i * mesh.length) / mesh.nx}, ${(j * mesh.width) / mesh.ny}, ${(k * mesh.height) / mesh.nz}`,
        );
      }
  lines.push(`*ELEMENT, TYPE=${type}, ELSET=BAR`);
  const members: Record<string, number[]> = Object.fromEntries(Object.keys(elsets).map((name) => [name, []]));
  let element = 1;
  for (let k = 0; k < mesh.nz; k++)
    for (let j = 0; j < mesh.ny; j++)
      for (let i = 0; i < mesh.nx; i++) {
        const n = (di: number, dj: number, dk: number) => nodeId(mesh, i + di, j + dj, k + dk);
        lines.push(
          `${element}, ${n(0, 0, 0)}, ${n(1, 0, 0)}, ${n(1, 1, 0)}, ${n(0, 1, 0)}, ${n(0, 0, 1)}, ${n(1, 0, 1)}, ${n(1, 1, 1)}, ${n(0, 1, 1)}`,
        );
        for (const [name, test] of Object.entries(elsets)) if (test(i)) members[name].push(element);
        element++;
      }
  for (const [name, ids] of Object.entries(members)) lines.push(`*ELSET, ELSET=${name}`, ...chunk(ids));
  return lines;
}

/** Node set of the cross-section at grid index i. */
function sectionSet(mesh: BarMesh, name: string, i: number): string[] {
  const ids: number[] = [];
  for (let k = 0; k <= mesh.nz; k++) for (let j = 0; j <= mesh.ny; j++) ids.push(nodeId(mesh, i, j, k));
  return [`*NSET, NSET=${name}`, ...chunk(ids)];
}

function chunk(ids: number[]): string[] {
  const lines: string[] = [];
  for (let p = 0; p < ids.length; p += 10) lines.push(`${ids.slice(p, p + 10).join(', ')},`);
  return lines;
}

/**
 * Steel cantilever (E = 210000 MPa, ν = 0.3, N-mm units) clamped at x = 0, tip load `load` N in -z spread over
 * the end section. C3D8I (incompatible modes) bricks model bending well at this mesh density.
 * Element sets: ROOT (first 10 % of the length) and SPAN (the rest).
 */
export function cantileverDeck(mesh: BarMesh, load: number): string {
  const tip: number[] = [];
  for (let k = 0; k <= mesh.nz; k++) for (let j = 0; j <= mesh.ny; j++) tip.push(nodeId(mesh, mesh.nx, j, k));
  const rootElements = Math.round(mesh.nx / 10);
  return [
    '*HEADING',
    'Cantilever beam for the calculix adapter tests',
    ...barMeshCards(mesh, 'C3D8I', { ROOT: (i) => i < rootElements, SPAN: (i) => i >= rootElements }),
    ...sectionSet(mesh, 'FIXED', 0),
    ...sectionSet(mesh, 'TIP', mesh.nx),
    '*MATERIAL, NAME=STEEL',
    '*ELASTIC',
    '210000, 0.3',
    '*SOLID SECTION, ELSET=BAR, MATERIAL=STEEL',
    '*BOUNDARY',
    'FIXED, 1, 3, 0',
    '*STEP',
    '*STATIC',
    '*CLOAD',
    ...tip.map((node) => `${node}, 3, ${-load / tip.length}`),
    '*END STEP',
    '',
  ].join('\n');
}

/**
 * Aluminium plate (N-mm-s-K units: k = 237, ρ = 2.7e-9 t/mm³, c = 9e8 mm²/(s²·K), so α = k/(ρc) = 97.5 mm²/s) held at `hot` on x = 0 and `cold` on x = length, insulated elsewhere:
 * 1-D conduction along x. Node sets X0, X25, X50, X75, X100 are the sections at that percentage of the length.
 * `transient` replaces the steady-state step by a transient one from 20 °C with fixed increments.
 */
export function heatedPlateDeck(
  mesh: BarMesh,
  hot: number,
  cold: number,
  transient?: { increment: number; duration: number; frequency?: number },
): string {
  const step = transient
    ? [`*HEAT TRANSFER, DIRECT`, `${transient.increment}, ${transient.duration}`]
    : ['*HEAT TRANSFER, STEADY STATE', '1., 1.'];
  const output = transient?.frequency ? [`*NODE FILE, FREQUENCY=${transient.frequency}`, 'NT'] : [];
  return [
    '*HEADING',
    'Heated plate for the calculix adapter tests',
    ...barMeshCards(mesh, 'C3D8'),
    ...[0, 25, 50, 75, 100].flatMap((percent) => sectionSet(mesh, `X${percent}`, (mesh.nx * percent) / 100)),
    '*MATERIAL, NAME=ALUMINIUM',
    '*CONDUCTIVITY',
    '237',
    '*DENSITY',
    '2.7e-9',
    '*SPECIFIC HEAT',
    '9.0e8',
    '*SOLID SECTION, ELSET=BAR, MATERIAL=ALUMINIUM',
    '*INITIAL CONDITIONS, TYPE=TEMPERATURE',
    'NALL, 20',
    '*STEP, INC=100000000',
    ...step,
    '*BOUNDARY',
    `X0, 11, 11, ${hot}`,
    `X100, 11, 11, ${cold}`,
    ...output,
    '*END STEP',
    '',
  ].join('\n');
}
