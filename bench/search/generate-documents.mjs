// Deterministic generator of realistic engineering skill documents for the search benchmark:
// snake_case names from verb × qualifier × object, descriptions from a domain vocabulary, tags,
// tool ids, a spread of statuses and phases. Same seed, same corpus.

export const DOMAINS = {
  mechanical: {
    objects: ['stress', 'margin', 'bolt', 'weld', 'fatigue', 'buckling', 'deflection', 'mesh', 'tolerance', 'stackup', 'bearing', 'shaft'],
    words: ['fea', 'von mises', 'structural', 'static', 'load case', 'material allowables', 'safety factor', 'assembly', 'cad'],
    tags: ['fea', 'stress', 'structural', 'tolerance', 'gdt', 'fatigue', 'cad'],
    tools: ['calculix.run_fea', 'freecad.export_step', 'gmsh.generate_mesh'],
  },
  electronics: {
    objects: ['schematic', 'netlist', 'pcb', 'erc', 'drc', 'bom', 'footprint', 'impedance', 'decoupling', 'power_rail', 'trace', 'via'],
    words: ['kicad', 'spice', 'circuit', 'layout', 'component', 'signal integrity', 'rule check', 'cost', 'supplier'],
    tags: ['pcb', 'schematic', 'erc', 'drc', 'bom', 'spice', 'layout', 'si'],
    tools: ['kicad.run_erc', 'kicad.run_drc', 'ngspice.run', 'octopart.lookup'],
  },
  firmware: {
    objects: [
      'memory_budget',
      'pinmap',
      'scaffold',
      'linker_script',
      'interrupt',
      'clock_tree',
      'bootloader',
      'stack',
      'rtos_task',
      'driver',
    ],
    words: ['mcu', 'flash', 'ram', 'embedded', 'hal', 'gpio', 'peripheral', 'datasheet', 'register'],
    tags: ['firmware', 'embedded', 'mcu', 'memory', 'pinmap', 'rtos', 'codegen'],
    tools: ['gcc.size', 'cubemx.generate', 'openocd.flash'],
  },
  simulation: {
    objects: ['results', 'mesh_quality', 'convergence', 'boundary_conditions', 'solver_settings', 'time_step', 'residuals', 'sweep'],
    words: ['simulation', 'solver', 'cfd', 'transient', 'steady state', 'regression', 'tolerance', 'field'],
    tags: ['simulation', 'cfd', 'mesh', 'solver', 'regression', 'validation'],
    tools: ['openfoam.run', 'calculix.run_fea', 'paraview.extract'],
  },
  thermal: {
    objects: ['junction_temperature', 'derating', 'heatsink', 'airflow', 'thermal_resistance', 'hotspot', 'enclosure', 'power_dissipation'],
    words: ['thermal', 'temperature', 'ambient', 'cooling', 'power', 'semiconductor', 'convection', 'conduction'],
    tags: ['thermal', 'power', 'temperature', 'cooling', 'derating'],
    tools: ['thermal.solve_network', 'openfoam.run'],
  },
  optics: {
    objects: ['lens_stack', 'ray_trace', 'mtf', 'aberration', 'tolerance', 'stray_light', 'focus', 'illumination'],
    words: ['optical', 'lens', 'wavelength', 'zemax', 'sensor', 'aperture', 'field of view'],
    tags: ['optics', 'raytrace', 'lens', 'mtf', 'imaging'],
    tools: ['zemax.trace', 'optics.mtf'],
  },
  fluids: {
    objects: ['pressure_drop', 'pump_curve', 'pipe_network', 'flow_rate', 'cavitation', 'valve', 'manifold'],
    words: ['fluid', 'pressure', 'flow', 'viscosity', 'hydraulic', 'pipe', 'reynolds number'],
    tags: ['fluids', 'hydraulics', 'pressure', 'flow', 'cfd'],
    tools: ['openfoam.run', 'epanet.solve'],
  },
  controls: {
    objects: ['pid_gains', 'stability_margin', 'bode_plot', 'step_response', 'state_space', 'observer', 'filter'],
    words: ['control', 'loop', 'plant', 'feedback', 'bandwidth', 'phase margin', 'gain margin', 'actuator'],
    tags: ['controls', 'pid', 'stability', 'tuning', 'dsp'],
    tools: ['octave.run', 'matlab.simulate'],
  },
};

const VERBS = [
  'check',
  'validate',
  'compute',
  'estimate',
  'generate',
  'compare',
  'optimize',
  'analyze',
  'report',
  'export',
  'import',
  'tune',
];
const QUALIFIERS = [
  '',
  'quick',
  'detailed',
  'batch',
  'nominal',
  'worst_case',
  'linear',
  'nonlinear',
  'static',
  'transient',
  'legacy',
  'auto',
];
const STATUSES = [
  ['ACTIVE', 70],
  ['REGISTERED', 12],
  ['DEPRECATED', 10],
  ['DRAFT', 5],
  ['ARCHIVED', 3],
];

function prng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` SearchDocuments (libs/search shape), deterministic for a given seed. */
export function generateDocuments(count, seed = 42) {
  const random = prng(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const pickWeighted = (weighted) => {
    let r = random() * weighted.reduce((sum, [, w]) => sum + w, 0);
    for (const [value, w] of weighted) if ((r -= w) < 0) return value;
    return weighted[0][0];
  };
  const domainNames = Object.keys(DOMAINS);
  const used = new Set();
  const documents = [];
  for (let i = 0; i < count; i++) {
    const domain = domainNames[i % domainNames.length];
    const vocabulary = DOMAINS[domain];
    const verb = pick(VERBS);
    const qualifier = pick(QUALIFIERS);
    const object = pick(vocabulary.objects);
    let name = [verb, qualifier, object].filter(Boolean).join('_');
    for (let n = 2; used.has(name); n++) name = `${[verb, qualifier, object].filter(Boolean).join('_')}_v${n}`;
    used.add(name);
    const words = Array.from({ length: 2 + Math.floor(random() * 3) }, () => pick(vocabulary.words));
    const description =
      `${verb[0].toUpperCase()}${verb.slice(1)}s the ${object.replaceAll('_', ' ')} of a ${domain} design ` +
      `using ${words.slice(0, -1).join(', ')} and ${words.at(-1)}, and reports findings against the project limits.`;
    const tags = [...new Set([pick(vocabulary.tags), pick(vocabulary.tags), ...(random() < 0.3 ? [pick(vocabulary.tags)] : [])])];
    const toolIds = random() < 0.4 ? [pick(vocabulary.tools)] : [];
    documents.push({
      id: name,
      name,
      description,
      tags,
      domain,
      agent: random() < 0.85 ? domain : pick(domainNames),
      toolIds,
      status: pickWeighted(STATUSES),
      phase: 1 + Math.floor(random() * 3),
    });
  }
  return documents;
}

/** Queries an agent would plausibly send, with and without filters. */
export function benchmarkQueries(documents) {
  const exactNames = [documents[17], documents[4242 % documents.length], documents[documents.length - 1]].map((doc) => ({
    text: doc.name,
  }));
  return [
    { text: 'stress margin' },
    { text: 'check memory budget' },
    { text: 'thermal simulation' },
    { text: 'pcb drc' },
    { text: 'fea mesh quality' },
    { text: 'validate firmware pinmap' },
    { text: 'calculix.run_fea' },
    { text: 'junction temperature derating' },
    { text: 'tolerance stackup assembly' },
    { text: 'pressure drop pipe network' },
    { text: 'pid tuning stability margin' },
    { text: 'lens mtf tolerance' },
    { text: 'generate bom cost supplier' },
    { text: 'transient convergence residuals' },
    { text: 'check', limit: 20 },
    { text: 'report findings against the project limits' },
    { text: 'stress', domain: 'mechanical' },
    { text: 'simulation', tags: ['cfd'] },
    { text: 'check', agent: 'electronics', phase: 1 },
    { text: 'heatsink airflow', status: 'DEPRECATED' },
    { text: 'compute', limit: 100 },
    ...exactNames,
  ];
}
