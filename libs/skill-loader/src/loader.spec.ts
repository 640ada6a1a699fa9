import { cp, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidationIssue } from './issues.js';
import { SkillPackageLoader, type LoadedSkillPackage } from './loader.js';

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/skill-packages');
const good = join(fixtures, 'good/demo/echo_text');
const broken = (name: string) => join(fixtures, 'broken/demo', name);

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

/** Broken fixtures lack handler.spec.ts (jest would run it): that warning is expected everywhere. */
const NO_SPEC = warning('files', 'handler.spec.ts', '', 'handler.spec.ts is missing');

/** Every issue each broken fixture must yield, and no other. */
const RULES: Record<string, { valid: boolean; issues: ExpectedIssue[] }> = {
  missing_definition: { valid: false, issues: [error('files', 'definition.json', '', 'definition.json is missing')] },
  missing_skill_md: { valid: false, issues: [error('files', 'SKILL.md', '', 'SKILL.md is missing')] },
  missing_schema: { valid: false, issues: [error('files', 'schema.ts', '', 'schema.ts is missing')] },
  missing_handler: { valid: false, issues: [error('files', 'handler.ts', '', 'handler.ts is missing')] },
  missing_spec: { valid: true, issues: [] },
  malformed_json: { valid: false, issues: [error('json', 'definition.json', '', 'not valid JSON at line 5, column 1')] },
  unknown_field: { valid: false, issues: [error('definition', 'definition.json', '/idempotant', "unknown field 'idempotant'")] },
  mistyped_field: {
    valid: false,
    issues: [error('definition', 'definition.json', '/phase', 'field \'phase\' must be an integer 1, 2 or 3; found "1" (a string)')],
  },
  missing_field: { valid: false, issues: [error('definition', 'definition.json', '/agent', "required field 'agent' is missing")] },
  bad_semver: { valid: false, issues: [error('definition', 'definition.json', '/version', "field 'version' must be a semantic version")] },
  name_mismatch: {
    valid: false,
    issues: [
      error('definition', 'definition.json', '/name', "name 'other_name' does not match the package directory name 'name_mismatch'"),
    ],
  },
  missing_schema_export: {
    valid: false,
    issues: [
      error('schema', 'definition.json', '/input_schema', "input_schema names 'schema.DemoInptu' but schema.ts has no export 'DemoInptu'"),
    ],
  },
  not_zod_export: {
    valid: false,
    issues: [error('schema', 'schema.ts', '', "export 'DemoInput' (the input schema) is not a zod schema: found an object with keys text")],
  },
  schema_throws: {
    valid: false,
    issues: [error('schema', 'schema.ts', '', 'schema.ts failed to load: Error: schema exploded on purpose (at schema.ts:7:9)')],
  },
  handler_throws: {
    valid: false,
    issues: [error('handler', 'handler.ts', '', 'handler.ts failed to load: RangeError: handler exploded on purpose (at handler.ts:14:9)')],
  },
  unrepresentable_schema: {
    valid: false,
    issues: [error('schema', 'schema.ts', '', "input schema 'DemoInput' cannot be represented as JSON Schema: Date cannot be represented")],
  },
  undescribed_property: {
    valid: false,
    issues: [
      error('schema', 'schema.ts', '/properties/text', "property 'text' of input schema 'DemoInput' has no description"),
      error(
        'schema',
        'schema.ts',
        '/properties/options/properties/trim',
        "property 'options.trim' of input schema 'DemoInput' has no description",
      ),
    ],
  },
  input_not_object: {
    valid: false,
    issues: [
      error('schema', 'schema.ts', '', "input schema 'DemoInput' must describe a JSON object, but its JSON Schema has type 'string'"),
      warning('examples', 'definition.json', '/examples', 'no examples are declared'),
    ],
  },
  no_handler_class: {
    valid: false,
    issues: [
      error(
        'handler',
        'handler.ts',
        '',
        'handler.ts exports no class extending SkillBase; found instead: DemoHandler (class DemoHandler, not extending SkillBase)',
      ),
    ],
  },
  two_handler_classes: {
    valid: false,
    issues: [error('handler', 'handler.ts', '', 'handler.ts exports 2 classes extending SkillBase (DemoHandler, OtherDemoHandler)')],
  },
  handler_schema_mismatch: {
    valid: false,
    issues: [
      error(
        'handler',
        'handler.ts',
        'DemoHandler.inputSchema',
        "handler input type does not match definition: DemoHandler.inputSchema is schema.ts export 'DemoOutput', but definition.json input_schema names 'DemoInput'",
      ),
      error(
        'handler',
        'handler.ts',
        'DemoHandler.outputSchema',
        'handler output type does not match definition: DemoHandler.outputSchema is a schema that is not the schema.ts export',
      ),
    ],
  },
  gate_not_idempotent: {
    valid: true,
    issues: [
      warning(
        'policy',
        'definition.json',
        '/max_retries_per_gate',
        'max_retries_per_gate is 2 but the skill is not idempotent: the executor will not ask again',
      ),
    ],
  },
  gate_too_many: {
    valid: false,
    issues: [
      error(
        'definition',
        'definition.json',
        '/max_retries_per_gate',
        "field 'max_retries_per_gate' must be an integer 0 to 3 (re-asks of an invalid result within one attempt); found 4 (a number)",
      ),
    ],
  },
  retries_not_idempotent: {
    valid: true,
    issues: [
      warning('policy', 'definition.json', '/retries', 'retries is 2 but the skill is not idempotent: the executor will not retry it'),
    ],
  },
  bad_example: {
    valid: false,
    issues: [
      error(
        'examples',
        'definition.json',
        '/examples/1/input',
        'example 1 ("broken") input does not match the input schema: (root) must have required property \'text\'',
      ),
      error(
        'examples',
        'definition.json',
        '/examples/1/output',
        'example 1 ("broken") output does not match the output schema: /text must be string',
      ),
    ],
  },
  bad_tool_id: {
    valid: false,
    issues: [
      error(
        'definition',
        'definition.json',
        '/tools_required/0/tool_id',
        "field 'tools_required[0].tool_id' must be a tool id of the form <adapter>.<method>",
      ),
    ],
  },
  duplicate_tags: { valid: true, issues: [warning('definition', 'definition.json', '/tags/2', "tag 'demo' is listed more than once")] },
  skill_md_no_front_matter: { valid: true, issues: [warning('docs', 'SKILL.md', '', 'SKILL.md has no front matter')] },
  skill_md_name_mismatch: {
    valid: true,
    issues: [
      warning(
        'docs',
        'SKILL.md',
        '/name',
        "SKILL.md front matter name 'another_name' differs from definition.json name 'skill_md_name_mismatch'",
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

let loader: SkillPackageLoader;
beforeAll(() => {
  loader = new SkillPackageLoader();
});

describe('SkillPackageLoader: the good package', () => {
  let loaded: LoadedSkillPackage;
  beforeAll(async () => {
    loaded = await loader.load(good);
  });

  it('is valid, without any issue', () => {
    expect(loaded.issues).toEqual([]);
    expect(loaded.valid).toBe(true);
    expect(loaded.packagePath).toBe(good);
    expect(loaded.identity).toEqual({ name: 'echo_text', version: '0.1.0' });
    expect(loaded.contentHash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('has its definition with the defaults applied', () => {
    expect(loaded.definition).toEqual({
      name: 'echo_text',
      version: '0.1.0',
      domain: 'demo',
      agent: 'demo',
      description: 'Echoes a text back, optionally upper-cased, with its length.',
      phase: 1,
      tools_required: [],
      input_schema: 'schema.EchoTextInput',
      output_schema: 'schema.EchoTextOutput',
      timeout_seconds: 120,
      retries: 0,
      idempotent: false,
      max_retries_per_gate: 0,
      tags: [],
      examples: [{ description: 'plain echo', input: { text: 'hello' }, output: { text: 'hello', length: 5 } }],
      read_only: false,
      depends_on: [],
      compatibility: 'backward',
      destructive: false,
      open_world: false,
    });
  });

  it('exposes draft 2020-12 JSON Schemas with descriptions, input side and output side', () => {
    expect(loaded.inputJsonSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      description: 'Input of echo_text',
      properties: {
        text: { type: 'string', minLength: 1, description: 'Text to echo back' },
        uppercase: { type: 'boolean', default: false, description: 'Return the text upper-cased' },
      },
      required: ['text'],
    });
    expect(loaded.outputJsonSchema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      description: 'Output of echo_text',
      properties: {
        text: { type: 'string', description: 'The echoed text' },
        length: { type: 'integer', minimum: 0, description: 'Length of the echoed text, in characters' },
      },
      required: ['text', 'length'],
    });
  });

  it('gives the executor the handler class, which runs', async () => {
    const handlerClass = await loader.loadHandlerClass(good, loaded.definition!);
    expect(handlerClass.name).toBe('EchoTextHandler');
    const { createTestContext } = await import('@skill-registry/sdk');
    const handler = new handlerClass(createTestContext());
    await expect(handler.execute({ text: 'abc', uppercase: true })).resolves.toEqual({ text: 'ABC', length: 3 });
  });

  it('loads the same from a copy outside the repository', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'skill-loader-copy-'));
    try {
      const copy = join(outside, 'demo', 'echo_text');
      await cp(good, copy, { recursive: true });
      const copied = await loader.load(copy);
      expect(copied.issues).toEqual([]);
      expect(copied.valid).toBe(true);
      expect(copied.definition).toEqual(loaded.definition);
      expect(copied.inputJsonSchema).toEqual(loaded.inputJsonSchema);
      expect(copied.outputJsonSchema).toEqual(loaded.outputJsonSchema);
      expect(copied.contentHash).toBe(loaded.contentHash);
      await expect(loader.loadHandlerClass(copy, copied.definition!)).resolves.toHaveProperty('name', 'EchoTextHandler');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

describe('SkillPackageLoader: on-disk caches', () => {
  it('keeps transpiled files and example validators, and a later loader reuses them with the same result', async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), 'skill-loader-cache-'));
    const validatorFiles = async (count: number) => {
      // Validators are stored in the background: wait for them.
      for (let attempt = 0; attempt < 100; attempt++) {
        const files = (await readdir(join(cacheDir, 'ajv'))).filter((file) => file.endsWith('.cjs'));
        if (files.length >= count) return files;
        await new Promise((resolveWait) => setTimeout(resolveWait, 20));
      }
      return [];
    };
    try {
      const first = await new SkillPackageLoader({ cacheDir }).load(good);
      expect((await readdir(join(cacheDir, 'jiti'))).filter((file) => file.startsWith('echo_text-'))).toHaveLength(2);
      expect(await validatorFiles(2)).toHaveLength(2);
      expect(await new SkillPackageLoader({ cacheDir }).load(good)).toEqual(first);

      const compiled = await new SkillPackageLoader({ cacheDir }).load(broken('bad_example'));
      expect(await validatorFiles(4)).toHaveLength(4);
      const fromCache = await new SkillPackageLoader({ cacheDir }).load(broken('bad_example'));
      expect(fromCache.issues).toEqual(compiled.issues);
      expect(fromCache.issues.filter((issue) => issue.category === 'examples')).toHaveLength(2);
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });

  it('works with caching off', async () => {
    const loaded = await new SkillPackageLoader({ cacheDir: false }).load(broken('bad_example'));
    expect(loaded.issues.filter((issue) => issue.category === 'examples')).toHaveLength(2);
  });
});

describe('SkillPackageLoader: one issue per broken rule', () => {
  it.each(Object.entries(RULES))('%s', async (name, rule) => {
    const loaded = await loader.load(broken(name));
    const expected = [NO_SPEC, ...rule.issues];
    expect(asExpected(loaded.issues, expected)).toEqual(expect.arrayContaining(expected));
    expect(asExpected(loaded.issues, expected)).toHaveLength(expected.length);
    expect(loaded.valid).toBe(rule.valid);
    for (const issue of loaded.issues) expect(issue.hint).not.toBe('');
  });

  it('keeps a best-effort identity when definition.json is broken', async () => {
    expect((await loader.load(broken('bad_semver'))).identity).toEqual({ name: 'bad_semver', version: '0.0.0-draft' });
    expect((await loader.load(broken('name_mismatch'))).identity).toEqual({ name: 'other_name', version: '0.1.0' });
    expect((await loader.load(broken('malformed_json'))).identity).toEqual({ name: 'malformed_json', version: '0.0.0-draft' });
    const mistyped = await loader.load(broken('mistyped_field'));
    expect(mistyped.definition).toBeNull();
    expect(mistyped.identity).toEqual({ name: 'mistyped_field', version: '0.1.0' });
  });

  it('still derives the schemas that are fine when another part is broken', async () => {
    const loaded = await loader.load(broken('handler_throws'));
    expect(loaded.definition).not.toBeNull();
    expect(loaded.inputJsonSchema).toMatchObject({ type: 'object', properties: { text: { description: 'Text to process' } } });
  });

  it('lists the existing exports when input_schema names a missing one', async () => {
    const loaded = await loader.load(broken('missing_schema_export'));
    expect(loaded.issues.find((issue) => issue.path === '/input_schema')?.hint).toContain('schema.ts exports: DemoInput, DemoOutput');
  });

  it('suggests the field meant by an unknown one', async () => {
    const loaded = await loader.load(broken('unknown_field'));
    expect(loaded.issues.find((issue) => issue.path === '/idempotant')?.hint).toContain("Did you mean 'idempotent'?");
  });

  it('reports a syntax error in handler.ts with its location', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'skill-loader-syntax-'));
    try {
      const copy = join(outside, 'demo', 'echo_text');
      await cp(good, copy, { recursive: true });
      await writeFile(join(copy, 'handler.ts'), 'export class EchoTextHandler {\n  broken(: void {}\n}\n');
      const loaded = await loader.load(copy);
      expect(loaded.issues).toEqual([
        expect.objectContaining({
          severity: 'error',
          category: 'handler',
          file: 'handler.ts',
          path: '',
          message: expect.stringMatching(/^handler\.ts failed to load: .*Unexpected token.*handler\.ts:2:\d+/),
        }),
      ]);
      expect(loaded.inputJsonSchema).not.toBeNull();
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('sees an edited package on the next load (no stale module cache)', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'skill-loader-edit-'));
    try {
      const copy = join(outside, 'demo', 'echo_text');
      await cp(good, copy, { recursive: true });
      expect((await loader.load(copy)).valid).toBe(true);
      await writeFile(
        join(copy, 'schema.ts'),
        "import { z } from 'zod';\nexport const EchoTextInput = z.object({ text: z.string() });\nexport const EchoTextOutput = z.object({ text: z.string().describe('Echoed'), length: z.number().describe('Length') });\n",
      );
      const edited = await loader.load(copy);
      // schema.ts now imports 'zod' itself: resolvable outside the repository too.
      expect(edited.issues.map((issue) => `${issue.category} ${issue.path}`)).toEqual(['schema /properties/text']);
      expect(edited.valid).toBe(false);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('never lets one bad package affect another, even loaded concurrently', async () => {
    const names = Object.keys(RULES);
    const results = await Promise.all([...names.map((name) => loader.load(broken(name))), loader.load(good)]);
    expect(results.at(-1)!.issues).toEqual([]);
    expect(results.slice(0, -1).map((loaded) => loaded.valid)).toEqual(names.map((name) => RULES[name].valid));
  });

  it('reports a missing directory instead of throwing', async () => {
    const loaded = await loader.load(join(fixtures, 'no/such/package'));
    expect(loaded.valid).toBe(false);
    expect(loaded.issues).toEqual([
      expect.objectContaining({ severity: 'error', category: 'files', message: expect.stringContaining('is not a directory') }),
    ]);
  });

  it('refuses a broken handler to the executor with SkillLoadError', async () => {
    const definition = (await loader.load(good)).definition!;
    await expect(
      loader.loadHandlerClass(broken('two_handler_classes'), { ...definition, name: 'two_handler_classes' }),
    ).rejects.toMatchObject({
      name: 'SkillLoadError',
      skillName: 'two_handler_classes',
    });
  });
});
