import type { SearchDocument, SearchStatus } from './search-document.js';

/** A fixed corpus of engineering skills for the ranking tests (not used at run time). */
function skill(
  name: string,
  domain: string,
  status: SearchStatus,
  phase: number,
  description: string,
  tags: string[],
  toolIds: string[] = [],
): SearchDocument {
  return { id: name, name, domain, agent: domain, status, phase, description, tags, toolIds };
}

export const ENGINEERING_CORPUS: readonly SearchDocument[] = [
  skill(
    'check_memory_budget',
    'firmware',
    'ACTIVE',
    1,
    'Checks that firmware sections fit the MCU memory regions with the required free margins.',
    ['firmware', 'memory', 'flash', 'ram', 'linker', 'budget', 'embedded'],
  ),
  skill(
    'validate_pinmap',
    'firmware',
    'ACTIVE',
    1,
    'Validates an MCU pin map against the datasheet: conflicts, alternate functions and electrical limits.',
    ['firmware', 'pinmap', 'mcu', 'gpio', 'embedded'],
  ),
  skill('generate_scaffold', 'firmware', 'ACTIVE', 2, 'Generates a firmware project scaffold (HAL init, build files) for a target MCU.', [
    'firmware',
    'codegen',
    'scaffold',
    'embedded',
  ]),
  skill('compare_results', 'simulation', 'ACTIVE', 1, 'Compares two simulation result sets field by field within tolerances.', [
    'simulation',
    'comparison',
    'regression',
    'tolerance',
  ]),
  skill(
    'run_fea_stress',
    'mechanical',
    'ACTIVE',
    2,
    'Runs a linear static FEA stress analysis of a part and reports the peak von Mises stress.',
    ['fea', 'stress', 'structural'],
    ['calculix.run_fea'],
  ),
  skill(
    'check_stress_margin',
    'mechanical',
    'ACTIVE',
    1,
    'Checks computed stresses against material allowables and reports the margin of safety.',
    ['stress', 'margin', 'structural'],
  ),
  skill(
    'legacy_margin_check',
    'mechanical',
    'DEPRECATED',
    1,
    'Checks computed stresses against material allowables and reports the margin of safety.',
    ['stress', 'margin', 'structural'],
  ),
  skill('thermal_derating', 'thermal', 'ACTIVE', 1, 'Derates component power ratings for ambient temperature and airflow.', [
    'thermal',
    'derating',
    'power',
  ]),
  skill(
    'estimate_junction_temperature',
    'thermal',
    'REGISTERED',
    2,
    'Estimates semiconductor junction temperature from power dissipation and thermal resistance.',
    ['thermal', 'temperature', 'power'],
    ['thermal.solve_network'],
  ),
  skill(
    'run_spice_transient',
    'electronics',
    'ACTIVE',
    2,
    'Runs a SPICE transient simulation of a circuit netlist.',
    ['spice', 'simulation', 'circuit'],
    ['ngspice.run'],
  ),
  skill(
    'check_erc',
    'electronics',
    'ACTIVE',
    1,
    'Runs electrical rule checks on a schematic.',
    ['erc', 'schematic', 'validation'],
    ['kicad.run_erc'],
  ),
  skill(
    'check_drc',
    'electronics',
    'ACTIVE',
    2,
    'Runs design rule checks on a PCB layout.',
    ['drc', 'pcb', 'layout', 'validation'],
    ['kicad.run_drc'],
  ),
  skill('generate_bom', 'electronics', 'DRAFT', 1, 'Generates a bill of materials with costs from a schematic.', [
    'bom',
    'cost',
    'schematic',
  ]),
  skill('mesh_quality_report', 'simulation', 'ACTIVE', 3, 'Reports mesh quality metrics (aspect ratio, skewness) of an FEA mesh.', [
    'mesh',
    'fea',
    'quality',
  ]),
  skill('archived_fea_runner', 'mechanical', 'ARCHIVED', 2, 'Runs FEA with the old solver.', ['fea'], ['calculix.run_fea']),
  skill('tolerance_stackup', 'mechanical', 'ACTIVE', 2, 'Computes worst-case and RSS tolerance stack-ups of an assembly.', [
    'tolerance',
    'assembly',
    'gdt',
  ]),
];
