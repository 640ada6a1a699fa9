import type { SearchDocument } from './search-document.js';

/**
 * The skills seed 004 names in its Skills System text (maya-geometry, maya-pipeline, usd-tools, dcc-diagnostics,
 * workflow, an authoring example, a thin harness, maya-cleanup with products), with the descriptions, tags,
 * search hints and tools it gives them, as the registry indexes Agent Skills packages (catalog names in
 * snake_case, tool names as declared and qualified).
 */
function skill(
  name: string,
  fields: Pick<SearchDocument, 'description' | 'tags' | 'layer'> & Partial<SearchDocument> & { tools?: string[] },
): SearchDocument {
  const { tools = [], ...rest } = fields;
  return {
    id: name,
    name,
    domain: 'agent-skills',
    agent: '',
    toolIds: [],
    toolNames: tools.flatMap((tool) => [tool, `${name}__${tool}`]),
    status: 'ACTIVE',
    phase: 1,
    dcc: 'python',
    scope: 'system',
    ...rest,
  };
}

export const SEED_004_CORPUS: SearchDocument[] = [
  skill('maya_geometry', {
    description:
      'Domain skill — Maya geometry primitives: create spheres, cubes, cylinders; bevel and extrude polygon components. ' +
      'Use for individual geometry operations in Maya. Not for full asset export pipelines — use maya-pipeline for that. ' +
      'Not for raw USD file inspection — use usd-tools for that.',
    tags: ['geometry', 'create'],
    layer: 'domain',
    dcc: 'maya',
    searchHint: 'polygon modeling, sphere, bevel, extrude, mesh editing',
    searchAliases: ['primitive ball', 'mesh globe'],
    tools: ['create_sphere', 'export_fbx'],
    toolAliases: ['primitive ball', 'mesh globe'],
    toolDescriptions: ['Create a polygon sphere with the given radius.', 'Export selected objects to FBX.'],
  }),
  skill('maya_pipeline', {
    description: 'Domain skill — export Maya scenes to USD and set up asset pipelines. Use when publishing a Maya asset.',
    tags: ['pipeline', 'export'],
    layer: 'domain',
    dcc: 'maya',
    searchHint: 'export Maya scene to USD, asset pipeline, project setup',
    tools: ['export_usd'],
    toolDescriptions: ['Export the scene to a USD layer.'],
  }),
  skill('usd_tools', {
    description:
      'Infrastructure skill — low-level OpenUSD scene inspection and validation: read layer stacks, traverse prims, validate ' +
      'schemas. Use when working directly with raw USD files. Not for Maya-specific USD export — use maya-pipeline__export_usd for that.',
    tags: ['usd'],
    layer: 'infrastructure',
    searchHint: 'usd stage, prim, schema validation, usdcat, usdchecker',
    tools: ['validate', 'inspect_stage'],
    toolDescriptions: ['Validate a USD stage.', 'List the prims of a USD stage.'],
  }),
  skill('dcc_diagnostics', {
    description: 'Infrastructure skill — screenshots, audit logs, tool metrics and process status of the DCC host for recovery.',
    tags: ['diagnostics'],
    layer: 'infrastructure',
    searchHint: 'screenshot, audit log, debugging, failure recovery',
    tools: ['screenshot', 'audit_log', 'tool_metrics', 'process_status'],
  }),
  skill('workflow', {
    description: 'Infrastructure skill — chain tool calls into ordered, validated workflows with example JSON chains.',
    tags: ['orchestration'],
    layer: 'infrastructure',
    searchHint: 'workflow chain, orchestration, multi-step',
    tools: ['run_chain'],
  }),
  skill('maya_python_shell', {
    description: 'Thin-harness skill — run a raw Python snippet in Maya. Last resort when no domain skill covers a geometry operation.',
    tags: ['python'],
    layer: 'thin-harness',
    dcc: 'maya',
    searchHint: 'raw python, script, geometry escape hatch',
    tools: ['run_python'],
  }),
  skill('async_tool_demo', {
    description: 'Example skill — how to write an async tool with a deferred hint. Geometry sphere demo.',
    tags: ['demo'],
    layer: 'example',
    dcc: 'maya',
    searchHint: 'async tool, deferred hint, authoring reference',
    tools: ['slow_sphere'],
  }),
  skill('blender_geometry', {
    description: 'Domain skill — Blender geometry: create spheres and bevel edges in Blender.',
    tags: ['geometry', 'create'],
    layer: 'domain',
    dcc: 'blender',
    searchHint: 'polygon modeling, sphere, bevel',
    tools: ['create_sphere'],
  }),
  skill('maya_cleanup', {
    description: 'Domain skill — cleanup helpers. Use when removing unused scene data.',
    tags: ['cleanup'],
    layer: 'domain',
    dcc: 'maya',
    products: ['maya', 'houdini'],
    searchHint: 'delete unused nodes, optimize scene',
    tools: ['delete_unused'],
  }),
];
