import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAgentSkillPackage } from './loader.js';
import type { AgentSkillLoadResult, AgentSkillPackage } from './types.js';

const good = resolve(dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/agent-skills/good');

async function loadGood(name: string): Promise<AgentSkillLoadResult & { package: AgentSkillPackage }> {
  const result = await loadAgentSkillPackage(join(good, name));
  if (result.package === null) throw new Error(`${name} did not load: ${JSON.stringify(result.issues)}`);
  return result as AgentSkillLoadResult & { package: AgentSkillPackage };
}

describe('a multi-tool package with tools.yaml, python and bash scripts', () => {
  let result: AgentSkillLoadResult & { package: AgentSkillPackage };
  beforeAll(async () => {
    result = await loadGood('mesh-tools');
  });

  it('is valid without any issue', () => {
    expect(result.issues).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('reads the agentskills.io frontmatter', () => {
    expect(result.package).toMatchObject({
      name: 'mesh-tools',
      registryName: 'mesh_tools',
      license: 'MIT',
      compatibility: 'python3 >= 3.10 and bash',
      allowedTools: ['Bash(python3:*)', 'Read'],
      instructionOnly: false,
    });
    expect(result.package.description).toMatch(/^Domain skill — create and list polygon meshes in a scene file\. Use when/);
    expect(result.package.body).toContain('# Mesh Tools');
  });

  it('reads the metadata.dcc-mcp extensions', () => {
    expect(result.package).toMatchObject({
      version: '1.2.0',
      versionDefaulted: false,
      tags: ['geometry', 'create'],
      searchHint: 'polygon modeling, sphere, mesh listing',
      searchAliases: ['primitive ball', 'mesh globe'],
      layer: 'domain',
    });
  });

  it('merges depends from SKILL.md and metadata/depends.md as registry names with ranges', () => {
    expect(result.package.depends).toEqual([
      { name: 'dcc_diagnostics', range: '*' },
      { name: 'usd_tools', range: '^1.2.0' },
      { name: 'geometry_core', range: '>=2.0.0' },
    ]);
    expect(result.package.metadataFiles).toEqual(['metadata/depends.md']);
  });

  it('declares the tools of tools.yaml with qualified names, in order', () => {
    expect(result.package.tools.map((tool) => tool.qualifiedName)).toEqual(['mesh_tools__create_sphere', 'mesh_tools__list_meshes']);
  });

  it('reads every field of a tools.yaml entry', () => {
    const [createSphere] = result.package.tools;
    expect(createSphere).toMatchObject({
      name: 'create_sphere',
      description: 'Create a polygon sphere with the given radius.',
      readOnly: false,
      destructive: false,
      idempotent: true,
      timeoutSeconds: 30,
      retries: 2,
      searchAliases: ['ball'],
      nextTools: { onSuccess: ['mesh_tools__list_meshes'], onFailure: ['dcc_diagnostics__screenshot', 'dcc_diagnostics__audit_log'] },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      examples: [{ description: 'unit sphere', input: { radius: 1 }, output: { name: 'sphere1', vertices: 382 } }],
      scriptFile: 'scripts/create_sphere.py',
      script: { path: 'scripts/create_sphere.py', interpreter: 'python3' },
      notExecutableReason: null,
    });
    expect(createSphere.inputSchema).toMatchObject({ type: 'object', required: ['radius'] });
    expect(createSphere.outputSchema).toMatchObject({ type: 'object', required: ['name', 'vertices'] });
  });

  it('accepts camelCase inputSchema, applies the definition.json defaults and finds a script by its stem', () => {
    const [, listMeshes] = result.package.tools;
    expect(listMeshes).toMatchObject({
      inputSchema: { type: 'object', properties: {} },
      outputSchema: null,
      readOnly: true,
      idempotent: false,
      timeoutSeconds: 120,
      retries: 0,
      annotations: {},
      script: { path: 'scripts/list_meshes.sh', interpreter: 'bash' },
    });
  });

  it('lists every file, helpers under scripts/ included', () => {
    expect(result.package.files).toEqual([
      'SKILL.md',
      'assets/sphere-template.json',
      'metadata/depends.md',
      'references/REFERENCE.md',
      'scripts/__init__.py',
      'scripts/create_sphere.py',
      'scripts/list_meshes.sh',
      'scripts/utils/naming.py',
      'tools.yaml',
    ]);
  });

  it('projects metadata to strings', () => {
    expect(result.package.metadataStrings).toEqual({
      author: 'skill-registry tests',
      'dcc-mcp.dcc': 'python',
      'dcc-mcp.version': '1.2.0',
      'dcc-mcp.layer': 'domain',
      'dcc-mcp.tags': 'geometry,create',
      'dcc-mcp.search-hint': 'polygon modeling, sphere, mesh listing',
      'dcc-mcp.search-aliases': 'primitive ball,mesh globe',
      'dcc-mcp.depends': 'dcc-diagnostics,usd-tools@^1.2.0',
      'dcc-mcp.tools': 'tools.yaml',
    });
  });

  it('ships a python script that speaks JSON on stdin and stdout', () => {
    const run = spawnSync('python3', [join(good, 'mesh-tools/scripts/create_sphere.py')], { input: '{"radius": 1}', encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(result.package.tools[0].examples[0].output);
  });
});

describe("seed 004's hello-world: metadata.dcc-mcp without tools.yaml", () => {
  let result: AgentSkillLoadResult & { package: AgentSkillPackage };
  beforeAll(async () => {
    result = await loadGood('hello-world');
  });

  it('is valid without any issue', () => {
    expect(result.issues).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('gets one tool per script, named after its stem, with a permissive input schema', () => {
    expect(result.package.tools).toEqual([
      {
        name: 'greet',
        qualifiedName: 'hello_world__greet',
        description: 'Say hello to someone. Use when the user asks for a greeting.',
        inputSchema: { type: 'object' },
        outputSchema: null,
        readOnly: false,
        destructive: false,
        idempotent: false,
        timeoutSeconds: 120,
        retries: 0,
        searchAliases: [],
        nextTools: { onSuccess: [], onFailure: [] },
        annotations: {},
        examples: [],
        group: null,
        deferLoading: false,
        taskSupport: null,
        scriptFile: 'scripts/greet.py',
        script: { path: 'scripts/greet.py', interpreter: 'python3' },
        notExecutableReason: null,
      },
    ]);
    expect(result.package).toMatchObject({ registryName: 'hello_world', version: '1.0.0', layer: 'example', instructionOnly: false });
  });
});

describe('an instruction-only package in the anthropics style (no metadata.dcc-mcp, scripts as files)', () => {
  let result: AgentSkillLoadResult & { package: AgentSkillPackage };
  beforeAll(async () => {
    result = await loadGood('pdf-notes');
  });

  it('is valid without any issue', () => {
    expect(result.issues).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has no tools: its scripts, references and assets are files for the agent', () => {
    expect(result.package).toMatchObject({
      tools: [],
      instructionOnly: true,
      files: [
        'LICENSE.txt',
        'SKILL.md',
        'assets/notes-template.md',
        'references/FORMS.md',
        'scripts/extract_text.py',
        'scripts/fill_form.sh',
      ],
    });
  });

  it('reads a space-separated allowed-tools and the generic metadata.version', () => {
    expect(result.package).toMatchObject({
      allowedTools: ['Bash(python3:*)', 'Read', 'Write'],
      version: '2.1.0',
      versionDefaulted: false,
      license: 'Proprietary. LICENSE.txt has complete terms',
      metadataStrings: { author: 'example-org', version: '2.1.0' },
      tags: [],
      layer: null,
      searchHint: null,
    });
  });
});

describe('a single script backs every tool', () => {
  it('gives each tools.yaml entry the only script of the package', async () => {
    const result = await loadGood('render-runner');
    expect(result.issues).toEqual([]);
    expect(result.package.tools.map((tool) => [tool.qualifiedName, tool.script])).toEqual([
      ['render_runner__render_preview', { path: 'scripts/render.py', interpreter: 'python3' }],
      ['render_runner__render_final', { path: 'scripts/render.py', interpreter: 'python3' }],
    ]);
  });
});

describe('a package in the ClawHub/OpenClaw style (issue 24): another vendor’s nested block beside metadata.dcc-mcp', () => {
  let result: AgentSkillLoadResult & { package: AgentSkillPackage };
  beforeAll(async () => {
    result = await loadGood('vendor-blocks');
  });

  it('is valid: metadata.openclaw is kept verbatim with one warning, metadata.dcc-mcp is read', () => {
    expect(result.valid).toBe(true);
    expect(result.issues.map((issue) => [issue.severity, issue.path])).toEqual([['warning', '/metadata/openclaw']]);
    expect(result.package.version).toBe('1.2.0');
    expect(result.package.metadata.openclaw).toEqual({
      requires: { env: ['FIXTURE_API_KEY'], bins: ['python3'] },
      primaryEnv: 'FIXTURE_API_KEY',
      emoji: '🧪',
      homepage: 'https://example.invalid/vendor-blocks',
      install: [{ kind: 'node', package: 'prettier', bins: ['prettier'] }],
    });
    expect(result.package).toMatchObject({ license: 'MIT', compatibility: 'Requires python3 on PATH', allowedTools: ['Bash', 'Read'] });
  });
});

describe("seed 004's maya-geometry with every sidecar: prompts, resources, workflows, runtimes", () => {
  let result: AgentSkillLoadResult & { package: AgentSkillPackage };
  beforeAll(async () => {
    result = await loadGood('maya-geometry');
  });

  it('is valid; the one warning names the tool that cannot run here', () => {
    expect(result.valid).toBe(true);
    expect(result.issues.map(({ severity, file, path }) => `${severity} ${file} ${path}`)).toEqual([
      'warning tools.yaml /tools/2/source_file',
    ]);
    expect(result.package.tools.find((tool) => tool.name === 'create_sphere')?.deferLoading).toBe(true);
  });

  it('reads dcc and products', () => {
    expect(result.package).toMatchObject({ dcc: 'maya', products: ['maya', 'mayapy'], implicitInvocation: true, externalDeps: null });
  });

  it('reads the prompt files a glob names, as <skill>__<prompt> with their arguments and template', () => {
    expect(result.package.prompts).toEqual([
      {
        name: 'bevel_all_edges',
        qualified_name: 'maya_geometry__bevel_all_edges',
        title: null,
        description: 'Bevel every selected edge with a consistent chamfer width.',
        arguments: [
          { name: 'chamfer_width', description: 'Chamfer width in Maya units.', required: true },
          { name: 'segments', description: 'Number of chamfer segments (default 2).', required: false },
        ],
        template: expect.stringContaining('width={{chamfer_width}} and segments={{segments}}'),
      },
    ]);
  });

  it('reads the resource files of a directory, each pointing at a package file relative to its YAML file', () => {
    expect(result.package.resources).toEqual([
      {
        uri: 'maya-cmds://help/polySphere',
        name: 'cmds.polySphere help',
        title: null,
        description: "Output of cmds.help('polySphere') captured at skill build time.",
        mime_type: 'text/plain',
        path: 'resources/help/polySphere.txt',
        size: expect.any(Number),
      },
    ]);
  });

  it('reads a workflow: its inputs as an object schema (a default makes one optional), its steps with their argument templates', () => {
    expect(result.package.workflows).toEqual([
      {
        name: 'sphere_then_bevel',
        qualified_name: 'maya_geometry__sphere_then_bevel',
        description: 'Create a sphere, then bevel its edges, in one run.',
        input_schema: {
          type: 'object',
          additionalProperties: false,
          required: ['radius', 'width'],
          properties: {
            radius: { type: 'number', exclusiveMinimum: 0 },
            width: { type: 'number', exclusiveMinimum: 0 },
            segments: { type: 'integer', minimum: 1, default: 2 },
            prefix: { type: 'string', pattern: '^[a-z]+$', default: 'ball' },
          },
        },
        steps: [
          { id: 'create', tool: 'create_sphere', args: { radius: '{{inputs.radius}}', name: '{{inputs.prefix}}_{{inputs.radius}}' } },
          {
            id: 'bevel',
            tool: 'bevel_edges',
            args: { mesh: '{{steps.create.output.name}}', width: '{{inputs.width}}', segments: '{{inputs.segments}}' },
          },
        ],
        // The sum of its steps' tool timeouts (20 + 20), both tools idempotent.
        timeout_seconds: 40,
        idempotent: true,
        retries: 0,
        not_executable_reason: null,
      },
    ]);
  });

  it('reads inline runtimes of the three probe kinds (registration probes them)', () => {
    expect(result.package.runtimes).toEqual([
      { name: 'python', type: 'binary', target: 'python3', package: null, optional: false, feature_level: 'scripts', hint: null },
      { name: 'json-module', type: 'python_package', target: 'json', package: null, optional: false, feature_level: 'scripts', hint: null },
      {
        name: 'usdcat',
        type: 'binary',
        target: 'usdcat',
        package: null,
        optional: true,
        feature_level: 'usd-cli',
        hint: 'Install OpenUSD command-line tools to enable USD CLI checks.',
      },
      {
        name: 'houdini-solaris',
        type: 'env_var',
        target: 'HFS',
        package: null,
        optional: true,
        feature_level: 'solaris',
        hint: 'Start from a Houdini environment or set HFS.',
      },
    ]);
  });
});
