import { checkDefinition, isStrictSemver } from './definition.js';
import { IssueList } from './issues.js';
import { parseJsonText } from './json-file.js';
import { parseFrontMatter } from './skill-md.js';

const minimal = {
  name: 'validate_stress',
  version: '0.1.0',
  domain: 'mechanical',
  agent: 'mechanical',
  description: 'Validates stress results.',
  phase: 1,
  tools_required: [{ tool_id: 'calculix.run_fea', capability: 'stress_analysis' }],
  input_schema: 'schema.ValidateStressInput',
  output_schema: 'schema.ValidateStressOutput',
};

function check(raw: unknown, directoryName = 'validate_stress') {
  const issues = new IssueList();
  const result = checkDefinition(raw, directoryName, issues);
  return { ...result, issues: issues.items };
}

describe('checkDefinition', () => {
  it('applies the defaults of the optional fields', () => {
    const { definition, issues } = check(minimal);
    expect(issues).toEqual([]);
    expect(definition).toEqual({
      ...minimal,
      tools_required: [{ tool_id: 'calculix.run_fea', capability: 'stress_analysis', required: true }],
      timeout_seconds: 120,
      retries: 0,
      idempotent: false,
      max_retries_per_gate: 0,
      tags: [],
      examples: [],
      read_only: false,
      depends_on: [],
      compatibility: 'backward',
      destructive: false,
      open_world: false,
    });
  });

  it('reads the MCP annotations and task support, and refuses a bad task_support', () => {
    const declared = { ...minimal, title: 'Stress check', destructive: true, open_world: true, task_support: 'required' };
    expect(check(declared)).toMatchObject({
      issues: [],
      definition: { title: 'Stress check', destructive: true, open_world: true, task_support: 'required' },
    });
    const bad = check({ ...minimal, task_support: 'always' });
    expect(bad.definition).toBeNull();
    expect(bad.issues).toEqual([expect.objectContaining({ severity: 'error', path: '/task_support' })]);
    const both = check({ ...minimal, read_only: true, destructive: true });
    expect(both.issues).toEqual([expect.objectContaining({ severity: 'warning', path: '/destructive' })]);
  });

  it('accepts the seed example unchanged', () => {
    const seed = { ...minimal, timeout_seconds: 300, retries: 1, idempotent: true, tags: ['fea', 'stress'] };
    expect(check(seed).issues).toEqual([]);
  });

  it('reports one issue per problem, each with a JSON pointer, and keeps the valid fields', () => {
    const { definition, validFields, issues } = check({
      ...minimal,
      version: 'v1.0.0',
      phase: 4,
      timeout_seconds: 0,
      description: 'two\nlines',
      tools_required: [{ tool_id: 'calculix.run_fea', capability: 'x', requried: false }],
      examples: [{ input: [] }],
    });
    expect(definition).toBeNull();
    expect(issues.map((issue) => [issue.path, issue.message])).toEqual([
      ['/version', expect.stringContaining("field 'version' must be a semantic version")],
      ['/description', expect.stringContaining("field 'description' must be a non-empty one-line string")],
      ['/phase', "field 'phase' must be an integer 1, 2 or 3; found 4 (a number)"],
      ['/tools_required/0/requried', "unknown field 'tools_required[0].requried'"],
      ['/timeout_seconds', "field 'timeout_seconds' must be an integer >= 1 (seconds); found 0 (a number)"],
      ['/examples/0/input', "field 'examples[0].input' must be a JSON object; found an array of 0 items"],
    ]);
    expect(issues.find((issue) => issue.path === '/tools_required/0/requried')?.hint).toContain("Did you mean 'required'?");
    expect(issues.find((issue) => issue.path === '/version')?.hint).toBe('Use a strict semantic version, e.g. "1.0.0".');
    expect(validFields).toMatchObject({ name: 'validate_stress', input_schema: 'schema.ValidateStressInput', retries: 0 });
    expect(validFields).not.toHaveProperty('phase');
  });

  it('rejects a bad input_schema reference, a bad name and a non-object', () => {
    expect(check({ ...minimal, input_schema: 'ValidateStressInput' }).issues[0]).toMatchObject({
      path: '/input_schema',
      message: expect.stringContaining('"schema.<ExportName>"'),
    });
    expect(check({ ...minimal, name: 'ValidateStress' }, 'ValidateStress').issues[0]).toMatchObject({
      path: '/name',
      hint: 'Use snake_case, e.g. "validate_stress".',
    });
    expect(check([1, 2]).issues[0]).toMatchObject({
      category: 'definition',
      path: '',
      message: 'definition.json must contain a JSON object, found an array of 2 items',
    });
  });

  it('warns about a tool listed twice', () => {
    const tool = { tool_id: 'calculix.run_fea', capability: 'stress_analysis' };
    const { issues, definition } = check({ ...minimal, tools_required: [tool, tool] });
    expect(definition).not.toBeNull();
    expect(issues).toEqual([expect.objectContaining({ severity: 'warning', path: '/tools_required/1/tool_id' })]);
  });
});

describe('isStrictSemver', () => {
  it.each([
    ['1.2.3', true],
    ['0.1.0-alpha.1', true],
    ['1.0', false],
    ['v1.0.0', false],
    ['1.0.0+build.5', false],
    ['01.0.0', false],
  ])('%s → %s', (version, expected) => {
    expect(isStrictSemver(version)).toBe(expected);
  });
});

describe('parseJsonText', () => {
  it('gives the line and column of a syntax error', () => {
    expect(parseJsonText('{\n  "a": 1,\n}')).toEqual({ ok: false, message: 'Expected double-quoted property name', line: 3, column: 1 });
    expect(parseJsonText('{\n  "a": tru\n}')).toMatchObject({ ok: false, line: 2, column: 8 });
    expect(parseJsonText('')).toMatchObject({ ok: false, message: 'Unexpected end of JSON input', line: 1, column: 1 });
    expect(parseJsonText('\uFEFF{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
  });
});

describe('parseFrontMatter', () => {
  it('reads plain, quoted and folded values', () => {
    const markdown = '---\nname: echo_text\ndescription: "Echoes: text"\nlicense: \'MIT\'\nnotes: >\n  first\n  second\n---\n# echo_text\n';
    expect(parseFrontMatter(markdown)?.fields).toEqual({
      name: 'echo_text',
      description: 'Echoes: text',
      license: 'MIT',
      notes: 'first second',
    });
  });

  it('finds none without a leading --- block', () => {
    expect(parseFrontMatter('# title\n---\nname: x\n---\n')).toBeNull();
    expect(parseFrontMatter('---\nname: x\n')).toBeNull();
  });

  it('reads dependencies with ranges (default *) and the compatibility policy, refusing self, duplicate and malformed entries', () => {
    const { definition, issues } = check({
      ...minimal,
      depends_on: [{ name: 'export_mesh', range: '^1.2' }, { name: 'run_thermal' }],
      compatibility: 'none',
    });
    expect(issues).toEqual([]);
    expect(definition?.depends_on).toEqual([
      { name: 'export_mesh', range: '^1.2' },
      { name: 'run_thermal', range: '*' },
    ]);
    expect(definition?.compatibility).toBe('none');
    const broken = check({
      ...minimal,
      depends_on: [{ name: minimal.name }, { name: 'a_b', range: 'soon' }, { name: 'c_d' }, { name: 'c_d', range: '^2' }],
      compatibility: 'sideways',
    });
    expect(broken.definition).toBeNull();
    expect(broken.issues.map((issue) => [issue.path, issue.message])).toEqual(
      expect.arrayContaining([
        ['/depends_on/1/range', expect.stringContaining('semver range')],
        ['/compatibility', expect.stringContaining('"backward", "full" or "none"')],
      ]),
    );
    const duplicates = check({ ...minimal, depends_on: [{ name: minimal.name }, { name: 'c_d' }, { name: 'c_d', range: '^2' }] });
    expect(duplicates.issues.map((issue) => [issue.path, issue.message])).toEqual([
      ['/depends_on/0/name', 'the skill depends on itself'],
      ['/depends_on/2/name', "'c_d' is listed more than once in depends_on"],
    ]);
  });
});
