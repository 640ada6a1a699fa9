import { mkdtemp, rm, symlink, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidationIssue } from '#skill-loader/issues.js';
import { loadAgentSkillPackage } from './loader.js';
import type { AgentSkillLoadResult } from './types.js';

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/agent-skills/broken');

type ExpectedIssue = Pick<ValidationIssue, 'severity' | 'category' | 'file' | 'path'> & { message: string };
const error = (category: ValidationIssue['category'], file: string, path: string, message: string): ExpectedIssue => ({
  severity: 'error',
  category,
  file,
  path,
  message,
});
const warning = (category: ValidationIssue['category'], file: string, path: string, message: string): ExpectedIssue => ({
  severity: 'warning',
  category,
  file,
  path,
  message,
});

const DEFAULTED_VERSION = warning(
  'definition',
  'SKILL.md',
  '/metadata/dcc-mcp/version',
  'no version declared (metadata.dcc-mcp.version or metadata.version); it defaults to 1.0.0',
);

/** Every issue each broken fixture (one rule each) must yield, and no other. */
const RULES: Record<string, { valid: boolean; issues: ExpectedIssue[] }> = {
  // agentskills.io frontmatter
  Bad_Name: {
    valid: false,
    issues: [error('definition', 'SKILL.md', '/name', "name 'Bad_Name' is not a valid Agent Skills name: use lowercase letters, digits")],
  },
  '3d-tools': {
    valid: false,
    issues: [error('definition', 'SKILL.md', '/name', "name '3d-tools' has no catalog name: '3d_tools' must match ^[a-z][a-z0-9_]*$")],
  },
  'name-mismatch': {
    valid: false,
    issues: [error('definition', 'SKILL.md', '/name', "name 'other-name' does not match the package directory name 'name-mismatch'")],
  },
  'description-too-long': {
    valid: false,
    issues: [error('definition', 'SKILL.md', '/description', "field 'description' is 1025 characters long; at most 1024 are allowed")],
  },
  'description-missing': {
    valid: false,
    issues: [error('definition', 'SKILL.md', '/description', "required field 'description' is missing")],
  },
  'compatibility-too-long': {
    valid: false,
    issues: [error('definition', 'SKILL.md', '/compatibility', "field 'compatibility' is 501 characters long; at most 500 are allowed")],
  },
  // Kept and served as written (ClawHub's nested vendor blocks publish unchanged): warnings only.
  'metadata-not-string': {
    valid: true,
    issues: [
      warning(
        'definition',
        'SKILL.md',
        '/metadata/priority',
        "metadata 'priority' is 3 (a number), not a string; it is kept and served as written, not read",
      ),
      warning(
        'definition',
        'SKILL.md',
        '/metadata/owner',
        "metadata 'owner' is a nested block (another vendor's namespace); it is kept and served as written, not read",
      ),
    ],
  },
  'unknown-frontmatter-key': {
    valid: false,
    issues: [error('definition', 'SKILL.md', '/author', "unknown frontmatter key 'author'")],
  },
  'no-frontmatter': {
    valid: false,
    issues: [error('definition', 'SKILL.md', '', 'SKILL.md has no frontmatter')],
  },
  'frontmatter-yaml-syntax': {
    valid: false,
    issues: [error('json', 'SKILL.md', '', 'SKILL.md is not valid YAML at line 4, column 1')],
  },
  'no-skill-md': { valid: false, issues: [error('files', 'SKILL.md', '', 'SKILL.md is missing')] },
  'with-definition-json': {
    valid: false,
    issues: [error('files', 'definition.json', '', 'definition.json is present: this is a TypeScript skill package')],
  },
  // seed 004 strictness: legacy keys and the metadata.dcc-mcp namespace
  'legacy-top-level-key': {
    valid: false,
    issues: [
      error('definition', 'SKILL.md', '/version', "top-level 'version' is a legacy dcc-mcp extension key and is refused"),
      error('definition', 'SKILL.md', '/search-hint', "top-level 'search-hint' is a legacy dcc-mcp extension key and is refused"),
      DEFAULTED_VERSION,
    ],
  },
  'legacy-inline-tools': {
    valid: false,
    issues: [error('definition', 'SKILL.md', '/metadata/dcc-mcp/tools', 'metadata.dcc-mcp.tools must name a sibling file; found an array')],
  },
  'flat-dotted-metadata': {
    valid: true,
    issues: [
      warning(
        'definition',
        'SKILL.md',
        '/metadata/dcc-mcp.version',
        "metadata 'dcc-mcp.version' is the pre-0.15 flat form and is not read",
      ),
      DEFAULTED_VERSION,
    ],
  },
  'missing-version': { valid: true, issues: [DEFAULTED_VERSION] },
  'unknown-dcc-mcp-key': {
    valid: true,
    issues: [
      warning(
        'definition',
        'SKILL.md',
        '/metadata/dcc-mcp/search_hint',
        'metadata.dcc-mcp.search_hint is not a key this registry reads (ignored)',
      ),
    ],
  },
  'bad-version': {
    valid: false,
    issues: [
      error(
        'definition',
        'SKILL.md',
        '/metadata/dcc-mcp/version',
        'metadata.dcc-mcp.version must be a semantic version string MAJOR.MINOR.PATCH; found 1 (a number)',
      ),
    ],
  },
  'loose-metadata-version': {
    valid: true,
    issues: [
      warning(
        'definition',
        'SKILL.md',
        '/metadata/version',
        "metadata.version '1.0' is not a strict semantic version; it is registered as 1.0.0",
      ),
    ],
  },
  'unknown-layer': {
    valid: false,
    issues: [
      error(
        'definition',
        'SKILL.md',
        '/metadata/dcc-mcp/layer',
        'metadata.dcc-mcp.layer must be one of domain, infrastructure, thin-harness, example',
      ),
    ],
  },
  'bad-depends': {
    valid: false,
    issues: [
      error('definition', 'SKILL.md', '/metadata/dcc-mcp/depends/0', 'depends[0] has no skill name'),
      error('definition', 'SKILL.md', '/metadata/dcc-mcp/depends/1', "depends[1] 'Bad Name' is not a skill name"),
      error(
        'definition',
        'SKILL.md',
        '/metadata/dcc-mcp/depends/2',
        'depends[2] \'geometry-core\' has an invalid version range "not a range"',
      ),
      error('definition', 'SKILL.md', '/metadata/dcc-mcp/depends/3', "depends[3] names the skill itself ('bad_depends')"),
      error('definition', 'SKILL.md', '/metadata/dcc-mcp/depends/5', "depends[5] lists 'geometry_core' again"),
    ],
  },
  'tools-file-missing': {
    valid: false,
    issues: [error('files', 'SKILL.md', '/metadata/dcc-mcp/tools', "metadata.dcc-mcp.tools 'tools.yaml' does not exist in the package")],
  },
  'unreferenced-tools-yaml': {
    valid: true,
    issues: [warning('definition', 'SKILL.md', '/metadata', 'tools.yaml is read although SKILL.md does not reference it')],
  },
  // tools.yaml
  'tools-yaml-syntax': {
    valid: false,
    issues: [error('json', 'tools.yaml', '', 'tools.yaml is not valid YAML at line 4, column 1: Missing closing "quote')],
  },
  'tools-unknown-key': {
    valid: true,
    issues: [
      warning('definition', 'tools.yaml', '/tools/0/idempotant', "tool 'run': key 'idempotant' is not read by this registry (ignored)"),
    ],
  },
  'bad-tool-name': {
    valid: false,
    issues: [error('definition', 'tools.yaml', '/tools/0/name', "tool name 'CreateSphere' must be snake_case")],
  },
  'duplicate-tool-name': {
    valid: false,
    issues: [error('definition', 'tools.yaml', '/tools/1/name', "tool name 'run' is declared more than once")],
  },
  'missing-source-file': {
    valid: false,
    issues: [
      error('files', 'tools.yaml', '/tools/0/source_file', "tool 'run': source_file 'scripts/missing.py' does not exist in the package"),
    ],
  },
  'source-file-escape': {
    valid: false,
    issues: [
      error('policy', 'tools.yaml', '/tools/0/source_file', "tool 'climb': source_file '../outside.py' points outside the package"),
      error('policy', 'tools.yaml', '/tools/1/source_file', "tool 'absolute': source_file '/usr/bin/env' is an absolute path"),
    ],
  },
  'invalid-input-schema': {
    valid: false,
    issues: [
      error(
        'schema',
        'tools.yaml',
        '/tools/0/input_schema',
        "input_schema of tool 'run' is not a valid JSON Schema (2020-12): /type must be equal to one of the allowed values",
      ),
    ],
  },
  'schema-unknown-keyword': {
    valid: true,
    issues: [warning('schema', 'tools.yaml', '/tools/0/input_schema', "input_schema of tool 'run' uses unknown keyword 'propertise'")],
  },
  'example-mismatch': {
    valid: false,
    issues: [
      error(
        'examples',
        'tools.yaml',
        '/tools/0/examples/1/input',
        'example 1 ("broken") of tool \'run\': input does not match the input schema: /radius must be number',
      ),
      error(
        'examples',
        'tools.yaml',
        '/tools/0/examples/1/output',
        'example 1 ("broken") of tool \'run\': output does not match the output schema: /vertices must be integer',
      ),
    ],
  },
  'retries-not-idempotent': {
    valid: true,
    issues: [
      warning('policy', 'tools.yaml', '/tools/0/retries', "retries is 2 but tool 'run' is not idempotent: the executor will not retry it"),
    ],
  },
  'bad-timeout-retries': {
    valid: false,
    issues: [
      error('definition', 'tools.yaml', '/tools/0/retries', 'tool \'run\': retries must be an integer >= 0; found "2" (a string)'),
      error(
        'definition',
        'tools.yaml',
        '/tools/0/timeout_seconds',
        "tool 'run': timeout_seconds must be an integer >= 1 (seconds); found 0 (a number)",
      ),
    ],
  },
  'bad-next-tools': {
    valid: true,
    issues: [
      warning(
        'definition',
        'tools.yaml',
        '/tools/0/next-tools/on-success/0',
        'next-tools.on-success entry "maya.geometry.bevel" (a string) is not a qualified tool name <skill>__<tool> (dropped)',
      ),
      warning(
        'definition',
        'tools.yaml',
        '/tools/0/next-tools/on-failure',
        "next-tools.on-failure names 'bad_next_tools__missing', which this skill does not declare",
      ),
    ],
  },
  'annotations-precedence': {
    valid: true,
    issues: [
      warning(
        'definition',
        'tools.yaml',
        '/tools/0/read_only_hint',
        "tool 'risky': shorthand read_only_hint, idempotent_hint ignored because an annotations map is declared",
      ),
    ],
  },
  'unknown-group': {
    valid: false,
    issues: [error('definition', 'tools.yaml', '/tools/0/group', "tool 'run' names group 'rigging', which is not declared")],
  },
  // scripts
  'bat-script': {
    valid: true,
    issues: [
      warning(
        'handler',
        'tools.yaml',
        '/tools/0/source_file',
        "tool 'export_fbx' is listed but not executable on this platform: scripts/export_fbx.bat is a Windows batch script",
      ),
    ],
  },
  'auto-tools-bat': {
    valid: true,
    issues: [warning('handler', 'scripts/setup.bat', '', "tool 'setup' is listed but not executable on this platform: scripts/setup.bat")],
  },
  'no-script-for-tool': {
    valid: true,
    issues: [
      warning(
        'handler',
        'tools.yaml',
        '/tools/0',
        "tool 'convert' is listed but not executable: no script backs tool 'convert': it has no source_file, no scripts/convert.* exists",
      ),
    ],
  },
};

function asExpected(issues: ValidationIssue[], expected: ExpectedIssue[]): ExpectedIssue[] {
  // Replace each actual message by the expected fragment it contains, so a mismatch shows the whole list.
  return issues.map((issue) => {
    const match = expected.find(
      (candidate) => candidate.path === issue.path && candidate.file === issue.file && issue.message.includes(candidate.message),
    );
    return {
      severity: issue.severity,
      category: issue.category,
      file: issue.file,
      path: issue.path,
      message: match ? match.message : issue.message,
    };
  });
}

describe('loadAgentSkillPackage: one broken package per rule', () => {
  const results = new Map<string, AgentSkillLoadResult>();
  beforeAll(async () => {
    for (const name of Object.keys(RULES)) results.set(name, await loadAgentSkillPackage(join(fixtures, name)));
  });

  it.each(Object.entries(RULES))('%s yields exactly its issues', (name, rule) => {
    const result = results.get(name)!;
    expect(asExpected(result.issues, rule.issues)).toEqual(rule.issues);
    expect(result.valid).toBe(rule.valid);
  });

  it('gives every issue a hint', () => {
    for (const result of results.values()) for (const issue of result.issues) expect(issue.hint.length).toBeGreaterThan(10);
  });

  it('points refused legacy keys at metadata.dcc-mcp', () => {
    const [versionIssue] = results.get('legacy-top-level-key')!.issues;
    expect(versionIssue.hint).toContain('metadata.dcc-mcp.version');
  });

  it('hints a catalog-compatible name for a name starting with a digit', () => {
    expect(results.get('3d-tools')!.issues[0].hint).toContain('name: tools-3d');
  });

  it('defaults a missing version to 1.0.0 and says so', () => {
    const pkg = results.get('missing-version')!.package!;
    expect(pkg.version).toBe('1.0.0');
    expect(pkg.versionDefaulted).toBe(true);
  });

  it('gives an invalid version the draft version', () => {
    expect(results.get('bad-version')!.package!.version).toBe('0.0.0-draft');
  });

  it('lists a .bat tool as not executable with its script file', () => {
    const [tool] = results.get('bat-script')!.package!.tools;
    expect(tool).toMatchObject({ qualifiedName: 'bat_script__export_fbx', scriptFile: 'scripts/export_fbx.bat', script: null });
    expect(tool.notExecutableReason).toContain('no interpreter for .bat on this platform');
  });

  it('does not fall back to another script when source_file is refused', () => {
    const [tool] = results.get('missing-source-file')!.package!.tools;
    expect(tool.script).toBeNull();
    expect(tool.notExecutableReason).toBe("source_file of tool 'run' is not usable");
  });

  it('keeps a tool whose script is missing, not executable', () => {
    const [tool] = results.get('no-script-for-tool')!.package!.tools;
    expect(tool).toMatchObject({ name: 'convert', scriptFile: null, script: null });
  });

  it('suggests the hyphenated spelling of an unknown metadata.dcc-mcp key', () => {
    expect(results.get('unknown-dcc-mcp-key')!.issues[0].hint).toBe("Did you mean 'search-hint'?");
  });

  it('lets the nested annotations map win whole-map and keeps deferred_hint out of MCP annotations', () => {
    const [tool] = results.get('annotations-precedence')!.package!.tools;
    expect(tool).toMatchObject({ annotations: { destructiveHint: true }, readOnly: false, destructive: true, idempotent: false });
  });

  it('drops invalid next-tools entries and keeps the rest of the tool', () => {
    const [tool] = results.get('bad-next-tools')!.package!.tools;
    expect(tool.nextTools).toEqual({ onSuccess: [], onFailure: ['bad_next_tools__missing'] });
  });

  it('returns no package when SKILL.md or its frontmatter cannot be read', () => {
    for (const name of ['no-skill-md', 'no-frontmatter', 'frontmatter-yaml-syntax', 'with-definition-json']) {
      expect(results.get(name)!.package).toBeNull();
    }
  });
});

describe('loadAgentSkillPackage: fail-soft on the file system', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'agent-skills-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('reports a directory that does not exist instead of throwing', async () => {
    const result = await loadAgentSkillPackage(join(scratch, 'nowhere'));
    expect(result.package).toBeNull();
    expect(result.valid).toBe(false);
    expect(result.issues).toEqual([
      expect.objectContaining({ severity: 'error', category: 'files', message: "package directory 'nowhere' cannot be read" }),
    ]);
  });

  it('refuses a source_file that is a symbolic link leading out of the package', async () => {
    const dir = join(scratch, 'linked-out');
    await mkdir(join(dir, 'scripts'), { recursive: true });
    await writeFile(join(scratch, 'outside.py'), 'print("{}")\n');
    await symlink(join(scratch, 'outside.py'), join(dir, 'scripts', 'run.py'));
    await writeFile(
      join(dir, 'SKILL.md'),
      '---\nname: linked-out\ndescription: Symlink escape.\nmetadata:\n  dcc-mcp:\n    version: "1.0.0"\n    tools: tools.yaml\n---\n# Linked\n',
    );
    await writeFile(join(dir, 'tools.yaml'), 'tools:\n  - name: run\n    description: Run it.\n    source_file: scripts/run.py\n');
    const result = await loadAgentSkillPackage(dir);
    expect(asExpected(result.issues, [])).toEqual([
      {
        severity: 'error',
        category: 'policy',
        file: 'scripts/run.py',
        path: '',
        message: "'scripts/run.py' is a symbolic link to a file outside the package: a package's files must be its own (copy the file in)",
      },
    ]);
  });
});

describe('loadAgentSkillPackage: seed 004 policy keys are read with their effect, and reported where the registry does less', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'agent-skills-kept-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('reads products, allow-implicit-invocation, external-deps and defer-loading, with an info where the effect is partial', async () => {
    const dir = join(scratch, 'kept-keys');
    await mkdir(join(dir, 'scripts'), { recursive: true });
    await writeFile(join(dir, 'scripts', 'run.py'), 'print("{}")\n');
    await writeFile(
      join(dir, 'SKILL.md'),
      [
        '---',
        'name: kept-keys',
        'description: Keys of seed 004 with an effect on search, views and tools/list.',
        'metadata:',
        '  dcc-mcp:',
        '    version: "1.0.0"',
        '    products: [maya]',
        '    allow-implicit-invocation: false',
        '    external-deps: { env: [HFS] }',
        '    tools: tools.yaml',
        '---',
        '# Kept',
        '',
      ].join('\n'),
    );
    await writeFile(
      join(dir, 'tools.yaml'),
      'tools:\n  - name: run\n    description: Run it.\n    source_file: scripts/run.py\n    defer-loading: true\n',
    );
    const result = await loadAgentSkillPackage(dir);
    expect(result.valid).toBe(true);
    // products has its whole effect (the dcc filter); the others are stored and shown, so an info says what is not done.
    expect(result.issues.map(({ severity, file, path }) => ({ severity, file, path }))).toEqual([
      { severity: 'info', file: 'SKILL.md', path: '/metadata/dcc-mcp/allow-implicit-invocation' },
      { severity: 'info', file: 'SKILL.md', path: '/metadata/dcc-mcp/external-deps' },
    ]);
    expect(result.package).toMatchObject({ dcc: 'python', products: ['maya'], implicitInvocation: false, externalDeps: { env: ['HFS'] } });
    expect(result.package?.tools[0]?.deferLoading).toBe(true);
  });

  it('reads external-deps from its JSON string form and refuses JSON that does not parse', async () => {
    const write = async (name: string, value: string) => {
      const dir = join(scratch, name);
      await mkdir(dir, { recursive: true });
      await writeFile(
        join(dir, 'SKILL.md'),
        [
          '---',
          `name: ${name}`,
          'description: external-deps as seed 004 writes it, a JSON string.',
          'metadata:',
          '  dcc-mcp:',
          '    version: "1.0.0"',
          `    external-deps: '${value}'`,
          '---',
          '# X',
          '',
        ].join('\n'),
      );
      return loadAgentSkillPackage(dir);
    };
    const good = await write('json-deps', '{"mcp_servers": ["usd"], "binaries": ["usdcat"]}');
    expect(good.valid).toBe(true);
    expect(good.package?.externalDeps).toEqual({ mcp_servers: ['usd'], binaries: ['usdcat'] });
    const bad = await write('bad-json-deps', '{binaries: usdcat');
    expect(bad.valid).toBe(false);
    expect(bad.issues).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        path: '/metadata/dcc-mcp/external-deps',
        message: expect.stringMatching(/not valid JSON/),
      }),
    );
  });
});

describe('tool groups and task support (seed 004 "Tool Groups", MCP tasks)', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'agent-skills-groups-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('reads groups with description and default_active; a tool joins a group by group: or by the group listing it', async () => {
    const dir = join(scratch, 'grouped');
    await mkdir(join(dir, 'scripts'), { recursive: true });
    for (const tool of ['model', 'rig', 'plain']) await writeFile(join(dir, 'scripts', `${tool}.py`), 'print("{}")\n');
    await writeFile(
      join(dir, 'SKILL.md'),
      [
        '---',
        'name: grouped',
        'description: Grouped tools.',
        'metadata:',
        '  dcc-mcp:',
        '    version: "1.0.0"',
        '    tools: tools.yaml',
        '---',
        '# G',
        '',
      ].join('\n'),
    );
    await writeFile(
      join(dir, 'tools.yaml'),
      [
        'groups:',
        '  - { name: modeling, description: Modeling tools., default_active: true, tools: [model, ghost] }',
        '  - { name: rigging, description: Rigging tools. }',
        'tools:',
        '  - { name: model, description: Model., task_support: optional }',
        '  - { name: rig, description: Rig., group: rigging }',
        '  - { name: plain, description: Plain., task_support: sometimes }',
        '',
      ].join('\n'),
    );
    const result = await loadAgentSkillPackage(dir);
    expect(result.package?.toolGroups).toEqual([
      { name: 'modeling', description: 'Modeling tools.', defaultActive: true, tools: ['model'] },
      { name: 'rigging', description: 'Rigging tools.', defaultActive: false, tools: ['rig'] },
    ]);
    const tools = result.package?.tools ?? [];
    expect(tools.map((tool) => [tool.name, tool.group, tool.taskSupport])).toEqual([
      ['model', 'modeling', 'optional'],
      ['rig', 'rigging', null],
      ['plain', null, null],
    ]);
    expect(result.issues.map(({ severity, path }) => ({ severity, path }))).toEqual(
      expect.arrayContaining([
        { severity: 'warning', path: '/groups' },
        { severity: 'error', path: '/tools/2/task_support' },
      ]),
    );
  });
});
