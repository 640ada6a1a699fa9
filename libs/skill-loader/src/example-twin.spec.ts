import { describe, expect, it } from '@jest/globals';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkDefinition, type SkillExample } from './definition.js';
import { contentFilePathProblem, resolveExampleTwin } from './example-twin.js';
import { IssueList } from './issues.js';
import { SkillPackageLoader } from './loader.js';

const MESH_ID = '3f1c2a9e-6b7d-4c1e-9a55-2d8e4b7f0c11';
const minimal = {
  name: 'validate_stress',
  version: '1.0.0',
  domain: 'mechanical',
  agent: 'mechanical',
  description: 'Validates stress results.',
  phase: 1,
  tools_required: [],
  input_schema: 'schema.ValidateStressInput',
  output_schema: 'schema.ValidateStressOutput',
};

const meshFixture = (extra: Record<string, unknown> = {}) => ({
  id: MESH_ID,
  kind: 'mesh',
  name: 'cantilever mesh',
  media_type: 'text/x-calculix-inp',
  content_file: 'examples/cantilever.inp',
  ...extra,
});

function check(workProducts: unknown[]) {
  const issues = new IssueList();
  const result = checkDefinition(
    { ...minimal, examples: [{ input: {}, twin: { work_products: workProducts } }] },
    'validate_stress',
    issues,
  );
  return { ...result, issues: issues.items.map((issue) => [issue.path, issue.message]) };
}

describe('example twin fixtures in definition.json', () => {
  it('accepts work products with inline content or a content file, metadata and constraints', () => {
    const constraint = { kind: 'max_von_mises_stress', max_von_mises_mpa: 235, safety_factor: 1.5, material: 'steel_s235' };
    const { definition, issues } = check([
      meshFixture({ metadata: { nodes: 189 }, constraints: [constraint] }),
      {
        id: '0b7c3c1e-5f0e-4a59-8c55-6d3a2b1e9f00',
        kind: 'cad_model',
        name: 'block',
        media_type: 'text/x-gmsh-geo',
        content: 'Box(1) = {0, 0, 0, 1, 1, 1};',
      },
    ]);
    expect(issues).toEqual([]);
    expect(definition?.examples[0].twin?.work_products[0]).toEqual(meshFixture({ metadata: { nodes: 189 }, constraints: [constraint] }));
  });

  it('reports a malformed work product field by field, with its JSON pointer', () => {
    const { definition, issues } = check([{ id: 'mesh-1', kind: 'Mesh', name: 'x', media_type: 'inp', content: 'x', contnet: 'y' }]);
    expect(definition).toBeNull();
    const pointer = '/examples/0/twin/work_products/0';
    expect(issues).toEqual([
      [`${pointer}/id`, expect.stringContaining("field 'examples[0].twin.work_products[0].id' must be a UUID")],
      [`${pointer}/kind`, expect.stringContaining('must be a work product kind in lower_snake_case')],
      [`${pointer}/media_type`, expect.stringContaining('must be a media type <type>/<subtype>')],
      [`${pointer}/contnet`, "unknown field 'examples[0].twin.work_products[0].contnet'"],
    ]);
  });

  it('suggests the field meant by an unknown one, and requires the fields of a work product', () => {
    const issues = new IssueList();
    checkDefinition({ ...minimal, examples: [{ input: {}, twin: { work_product: [] } }] }, 'validate_stress', issues);
    expect(issues.items.find((issue) => issue.path === '/examples/0/twin/work_product')?.hint).toContain("Did you mean 'work_products'?");
    expect(check([{ id: MESH_ID, kind: 'mesh', name: 'x', content: 'x' }]).issues).toEqual([
      ['/examples/0/twin/work_products/0/media_type', "required field 'examples[0].twin.work_products[0].media_type' is missing"],
    ]);
  });

  it('needs exactly one of content and content_file, and each id once per example', () => {
    expect(check([meshFixture({ content: 'x' }), meshFixture({ content_file: undefined })]).issues).toEqual([
      [
        '/examples/0/twin/work_products/0',
        'examples[0].twin.work_products[0] must give exactly one of content and content_file; found both',
      ],
      [
        '/examples/0/twin/work_products/1',
        'examples[0].twin.work_products[1] must give exactly one of content and content_file; found neither',
      ],
      ['/examples/0/twin/work_products/1/id', `examples[0].twin.work_products[1].id ${MESH_ID} is listed more than once in this example`],
    ]);
  });

  it.each([
    ['/etc/passwd', 'is absolute'],
    ['C:/mesh.inp', 'is absolute'],
    ['../other/mesh.inp', 'leaves the package (..)'],
    ['examples/../../mesh.inp', 'leaves the package (..)'],
    ['examples\\mesh.inp', 'uses backslashes'],
    ['./examples/mesh.inp', 'is not a normalised path'],
    ['examples//mesh.inp', 'is not a normalised path'],
    ['node_modules/mesh.inp', "names 'node_modules', which packages leave out (dotfiles, node_modules, dist)"],
    ['examples/.mesh.inp', "names '.mesh.inp', which packages leave out (dotfiles, node_modules, dist)"],
  ])('refuses the content_file %s: it %s', (path, problem) => {
    expect(contentFilePathProblem(path)).toBe(problem);
    expect(check([meshFixture({ content_file: path })]).issues).toEqual([
      ['/examples/0/twin/work_products/0/content_file', `examples[0].twin.work_products[0].content_file '${path}' ${problem}`],
    ]);
  });

  it('accepts a nested package path', () => {
    expect(contentFilePathProblem('examples/meshes/cantilever.inp')).toBeNull();
  });
});

describe('example twin fixture files', () => {
  const good = resolve(dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/skill-packages/good/demo/echo_text');

  async function withPackage(examples: unknown[], test: (dir: string) => Promise<void>): Promise<void> {
    const outside = await mkdtemp(join(tmpdir(), 'skill-loader-twin-'));
    try {
      const dir = join(outside, 'demo', 'echo_text');
      await cp(good, dir, { recursive: true });
      const definition = JSON.parse(await readFile(join(dir, 'definition.json'), 'utf8'));
      await writeFile(join(dir, 'definition.json'), JSON.stringify({ ...definition, examples }));
      await test(dir);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  }

  const example = { input: { text: 'hello' }, output: { text: 'hello', length: 5 }, twin: { work_products: [meshFixture()] } };

  it('reports a content_file that is not in the package, in the loader issue style', async () => {
    await withPackage([example], async (dir) => {
      const loaded = await new SkillPackageLoader({ cacheDir: false }).load(dir);
      expect(loaded.valid).toBe(false);
      expect(loaded.issues).toEqual([
        {
          severity: 'error',
          category: 'examples',
          file: 'definition.json',
          path: '/examples/0/twin/work_products/0/content_file',
          message: "examples[0].twin.work_products[0].content_file 'examples/cantilever.inp' does not exist in the package",
          hint: 'Add the file examples/cantilever.inp to the package, or fix the path (it is relative to the package directory).',
        },
      ]);
    });
  });

  it('is valid with the file, and resolves the fixture bytes from the directory or from the files by path', async () => {
    await withPackage([example], async (dir) => {
      await mkdir(join(dir, 'examples'));
      await writeFile(join(dir, 'examples/cantilever.inp'), '*NODE\n1, 0, 0, 0\n');
      const loaded = await new SkillPackageLoader({ cacheDir: false }).load(dir);
      expect(loaded.issues).toEqual([]);
      const declared = loaded.definition!.examples[0];

      const expected = [
        {
          id: MESH_ID,
          kind: 'mesh',
          name: 'cantilever mesh',
          mediaType: 'text/x-calculix-inp',
          content: new TextEncoder().encode('*NODE\n1, 0, 0, 0\n'),
          metadata: {},
          constraints: [],
        },
      ];
      expect(await resolveExampleTwin(declared, dir)).toEqual(expected);
      const files = new Map([['examples/cantilever.inp', Buffer.from('*NODE\n1, 0, 0, 0\n')]]);
      expect(await resolveExampleTwin(declared, files)).toEqual(expected);
      await expect(resolveExampleTwin(declared, new Map())).rejects.toThrow(
        `content_file 'examples/cantilever.inp' of fixture work product ${MESH_ID} is not in the package`,
      );
    });
  });

  it('resolves inline content as UTF-8 and an example without fixtures to none', async () => {
    const inline: SkillExample = { input: {}, twin: { work_products: [{ ...meshFixture({ content_file: undefined }), content: 'µ' }] } };
    expect([...(await resolveExampleTwin(inline, new Map()))[0].content]).toEqual([0xc2, 0xb5]);
    expect(await resolveExampleTwin({ input: {} }, new Map())).toEqual([]);
  });
});
