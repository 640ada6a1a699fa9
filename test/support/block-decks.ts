/**
 * A CalculiX deck for the 2 × 3 × 4 mm block that export_mesh's example meshes: bottom on rollers, two
 * corners held against rigid-body motion, 10 MPa on the top face. A uniform uniaxial stress, which
 * linear tetrahedra represent exactly: every region's von Mises stress is 10 MPa (to CalculiX's six
 * printed digits), the largest displacement (p/E)·√(4² + (0.3·2)² + (0.3·3)²) at the free top corner.
 * `meshInp` is the mesh the deck includes as mesh.inp; its corner nodes are found in its *NODE block
 * (a node line is "id, x, y, z").
 */
export function uniaxialBlockDeck(meshInp: string): string {
  const nodeAt = (x: number, y: number, z: number) => {
    const line = [...meshInp.matchAll(/^(\d+), (\S+), (\S+), (\S+)$/gm)].find(
      (match) => Number(match[2]) === x && Number(match[3]) === y && Number(match[4]) === z,
    );
    if (!line) throw new Error(`the mesh has no node at (${x}, ${y}, ${z})`);
    return line[1];
  };
  return uniaxialDeck({ origin: 'ORIGIN', xcorner: 'XCORNER' }, [
    '*NSET, NSET=ORIGIN',
    `${nodeAt(0, 0, 0)},`,
    '*NSET, NSET=XCORNER',
    `${nodeAt(2, 0, 0)},`,
  ]);
}

/**
 * The same load case on a mesh whose node sets `origin` (the corner at 0, 0, 0) and `xcorner` (the corner
 * along x) are named `sets`, with `nodeSets` defining them when the mesh does not.
 */
export function uniaxialDeck(sets: { origin: string; xcorner: string }, nodeSets: string[] = []): string {
  return [
    '*INCLUDE, INPUT=mesh.inp',
    ...nodeSets,
    '*MATERIAL, NAME=STEEL',
    '*ELASTIC',
    '210000, 0.3',
    '*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL',
    '*BOUNDARY',
    'bottom, 3, 3, 0',
    `${sets.origin}, 1, 2, 0`,
    `${sets.xcorner}, 2, 2, 0`,
    '*STEP',
    '*STATIC',
    '*DSLOAD',
    'top, P, 10',
    '*END STEP',
  ].join('\n');
}
