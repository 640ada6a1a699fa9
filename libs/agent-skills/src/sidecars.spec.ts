import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAgentSkillPackage } from './loader.js';
import type { AgentSkillLoadResult } from './types.js';

const MAYA_GEOMETRY = resolve(dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/agent-skills/good/maya-geometry');
const WORKFLOW = 'workflows/sphere_then_bevel.workflow.yaml';
const PROMPT = 'prompts/bevel_all_edges.prompt.yaml';
const RESOURCE = 'resources/cmds_help.resource.yaml';

let scratch: string;
let count = 0;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'agent-skills-sidecars-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** maya-geometry with some files replaced (or, with `null`, written empty), loaded. */
async function variant(files: Record<string, string | ((text: string) => string)>): Promise<AgentSkillLoadResult> {
  const dir = join(scratch, `case-${++count}`, 'maya-geometry');
  await cp(MAYA_GEOMETRY, dir, { recursive: true });
  for (const [file, change] of Object.entries(files)) {
    const text = typeof change === 'string' ? change : change(await readFile(join(dir, file), 'utf8'));
    await writeFile(join(dir, file), text);
  }
  return loadAgentSkillPackage(dir);
}

const errorsOf = (result: AgentSkillLoadResult) =>
  result.issues.filter((issue) => issue.severity === 'error').map(({ file, path, message }) => ({ file, path, message }));

describe('workflows are checked against the package at registration', () => {
  it('refuses a step whose tool is not a tool of the package', async () => {
    const result = await variant({ [WORKFLOW]: (text) => text.replace('tool: create_sphere', 'tool: other_skill__create_sphere') });
    expect(result.valid).toBe(false);
    expect(errorsOf(result)).toEqual([
      {
        file: WORKFLOW,
        path: '/steps/0/tool',
        message: `workflow 'sphere_then_bevel', step 'create': tool 'other_skill__create_sphere' is not a tool of this package`,
      },
    ]);
    expect(result.package?.workflows).toEqual([]);
  });

  it('refuses a reference to a step that does not run before, and one to an undeclared input', async () => {
    const result = await variant({
      [WORKFLOW]: (text) =>
        text
          .replace('radius: "{{inputs.radius}}", name', 'radius: "{{steps.bevel.output.mesh}}", name')
          .replace('{{inputs.width}}', '{{inputs.depth}}'),
    });
    expect(errorsOf(result).map((issue) => issue.message)).toEqual([
      expect.stringMatching(/step 'create': '\{\{steps\.bevel\.output\.mesh\}\}' names step 'bevel', which does not run before this one/),
      expect.stringMatching(/step 'bevel': '\{\{inputs\.depth\}\}' names input 'depth', which inputs does not declare/),
    ]);
  });

  it('refuses arguments that miss what the tool requires, name what it does not take, or read what its output does not have', async () => {
    const result = await variant({
      [WORKFLOW]: (text) =>
        text
          .replace('      width: "{{inputs.width}}"\n', '      depth: 1\n')
          .replace('{{steps.create.output.name}}', '{{steps.create.output.label}}'),
    });
    expect(errorsOf(result).map((issue) => issue.message)).toEqual([
      "workflow 'sphere_then_bevel', step 'bevel': '{{steps.create.output.label}}' reads 'label', which the output_schema of tool 'create_sphere' does not have",
      "workflow 'sphere_then_bevel', step 'bevel': tool 'bevel_edges' requires width, which args does not give",
      "workflow 'sphere_then_bevel', step 'bevel': tool 'bevel_edges' takes no argument depth",
    ]);
  });

  it('refuses a malformed reference and control-flow steps it does not run', async () => {
    const result = await variant({
      [WORKFLOW]: (text) =>
        text.replace('{{inputs.width}}', '{{ env.HOME }}') + '  - id: each\n    kind: foreach\n    items: "$.create.files"\n',
    });
    expect(errorsOf(result).map((issue) => issue.message)).toEqual([
      expect.stringMatching(/'\{\{env\.HOME\}\}' must start with inputs\.<name> or steps\.<id>\.output/),
      expect.stringMatching(/step 'each': kind, items are not supported here: a step runs one tool of the package/),
    ]);
  });

  it('refuses a workflow named like a tool (an execution names either by one name)', async () => {
    const result = await variant({ [WORKFLOW]: (text) => text.replace('name: sphere_then_bevel', 'name: create_sphere') });
    expect(errorsOf(result)).toEqual([
      expect.objectContaining({
        path: '/name',
        message: expect.stringMatching(/workflow name 'create_sphere' is taken by another workflow or tool/),
      }),
    ]);
  });

  it('keeps a workflow through a tool that cannot run here, marked not executable, with a warning', async () => {
    const result = await variant({
      [WORKFLOW]: (text) => `${text}  - id: export\n    tool: export_fbx\n`,
    });
    expect(result.valid).toBe(true);
    expect(result.package?.workflows[0]?.not_executable_reason).toMatch(
      /step 'export' runs tool 'export_fbx', which is not executable here/,
    );
  });
});

describe('prompts, resources and runtimes are checked as they are read', () => {
  it('refuses a template placeholder that no argument declares', async () => {
    const result = await variant({ [PROMPT]: (text) => text.replace('segments={{segments}}', 'segments={{segment_count}}') });
    expect(errorsOf(result)).toEqual([
      {
        file: PROMPT,
        path: '/template',
        message: "prompt 'bevel_all_edges': template uses {{segment_count}}, which arguments does not declare",
      },
    ]);
  });

  it("refuses a resource under the registry's own schemes, and one whose file escapes the package", async () => {
    const result = await variant({
      [RESOURCE]: (text) =>
        text.replace('maya-cmds://help/polySphere', 'skill://maya-geometry/SKILL.md') +
        '  - uri: maya-cmds://secrets\n    name: secrets\n    source: { type: file, path: ../../../../etc/passwd }\n',
    });
    expect(errorsOf(result).map((issue) => issue.message)).toEqual([
      expect.stringMatching(/resource uri skill:\/\/maya-geometry\/SKILL\.md uses the scheme skill, which a package may not use/),
      expect.stringMatching(/resource maya-cmds:\/\/secrets: source\.path .* points outside the package/),
    ]);
  });

  it('refuses a sidecar reference that names no file', async () => {
    const result = await variant({
      'SKILL.md': (text) => text.replace('prompts: prompts/*.prompt.yaml', 'prompts: prompts/*.prompts.yml'),
    });
    expect(errorsOf(result)).toEqual([
      {
        file: 'SKILL.md',
        path: '/metadata/dcc-mcp/prompts',
        message: "metadata.dcc-mcp.prompts 'prompts/*.prompts.yml' names no file of the package",
      },
    ]);
  });

  it('refuses a runtime of an unknown kind and a binary name a shell would read', async () => {
    const result = await variant({
      'SKILL.md': (text) => text.replace('type: env_var', 'type: registry_key').replace('binary: usdcat', 'binary: "usdcat; rm -rf /"'),
    });
    expect(errorsOf(result).map((issue) => issue.message)).toEqual([
      expect.stringMatching(/runtime 'usdcat': binary must be a name matching/),
      expect.stringMatching(/runtime 'houdini-solaris': type must be one of env_var, binary, python_package; found "registry_key"/),
    ]);
  });
});
