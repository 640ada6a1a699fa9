/** A physical group of a gmsh model: its dimension, tag, name and the entities it holds. */
export interface PhysicalGroup {
  dim: number;
  tag: number;
  name: string;
  entities: number[];
}

/** The model's entities as written by `gmsh -0 -o model.msh` (MSH 4.1 ASCII, no mesh). */
export interface ModelEntities {
  /** Point tag → coordinates (exact). */
  points: Map<number, [number, number, number]>;
  /** Entity tags per dimension 0..3. */
  tags: [number[], number[], number[], number[]];
  physicalGroups: PhysicalGroup[];
}

const DIM_WORDS = ['Point', 'Curve', 'Surface', 'Volume'];

/** Read $PhysicalNames and $Entities of an MSH 4.1 ASCII file. */
export function parseModelEntities(msh: string): ModelEntities {
  const lines = msh.split(/\r?\n/);
  const names = new Map<string, string>();
  const groups = new Map<string, PhysicalGroup>();
  const model: ModelEntities = { points: new Map(), tags: [[], [], [], []], physicalGroups: [] };

  const namesAt = lines.indexOf('$PhysicalNames');
  if (namesAt >= 0) {
    const count = Number(lines[namesAt + 1]);
    for (let i = 0; i < count; i++) {
      const match = /^(\d+)\s+(-?\d+)\s+"(.*)"\s*$/.exec(lines[namesAt + 2 + i]);
      if (match) names.set(`${match[1]}:${match[2]}`, match[3]);
    }
  }
  const entitiesAt = lines.indexOf('$Entities');
  if (entitiesAt < 0) throw new Error('gmsh wrote no $Entities section');
  const counts = lines[entitiesAt + 1].trim().split(/\s+/).map(Number);
  let row = entitiesAt + 2;
  for (let dim = 0; dim < 4; dim++) {
    for (let n = 0; n < counts[dim]; n++, row++) {
      const values = lines[row].trim().split(/\s+/).map(Number);
      const tag = values[0];
      model.tags[dim].push(tag);
      // Points: tag x y z nPhys phys...; higher dimensions: tag minX minY minZ maxX maxY maxZ nPhys phys... .
      const physAt = dim === 0 ? 4 : 7;
      if (dim === 0) model.points.set(tag, [values[1], values[2], values[3]]);
      const physCount = values[physAt];
      for (let p = 0; p < physCount; p++) {
        const physTag = Math.abs(values[physAt + 1 + p]);
        const key = `${dim}:${physTag}`;
        const group = groups.get(key) ?? { dim, tag: physTag, name: names.get(key) ?? `Physical${DIM_WORDS[dim]}${physTag}`, entities: [] };
        group.entities.push(tag);
        groups.set(key, group);
      }
    }
  }
  model.physicalGroups = [...groups.values()].sort((a, b) => a.dim - b.dim || a.tag - b.tag);
  return model;
}
