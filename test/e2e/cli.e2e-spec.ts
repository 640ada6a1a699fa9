import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { obliterateQueue } from '../support/executions.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { REPO_ROOT, tempRoot } from '../support/skill-packages.js';

const CLI = path.join(REPO_ROOT, 'dist/apps/cli/src/main.js');

/** The author CLI as a separate program, from `init` to an ACTIVE skill that executes. */
describe('skill-registry CLI', () => {
  let db: TestDatabase;
  let work: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  const queuePrefix = `test-cli-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase('cli');
    work = await tempRoot('cli-');
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [await tempRoot()], queuePrefix });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
  });

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(work, { recursive: true, force: true });
  });

  const cli = async (...args: string[]) => {
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [CLI, ...args], {
        cwd: work,
        env: { ...process.env, SKILL_REGISTRY_TOKEN: '' },
      });
      return { code: 0, stdout };
    } catch (error) {
      const failed = error as { code: number; stdout: string };
      return { code: failed.code, stdout: failed.stdout };
    }
  };

  it('scaffolds, validates, packs and publishes a package that is then promoted and executed', async () => {
    expect((await cli('--help')).stdout).toContain('publish');
    expect(await cli('init', 'demo/double_it')).toMatchObject({ code: 0 });
    const dir = path.join(work, 'demo/double_it');
    expect(await cli('validate', dir)).toMatchObject({ code: 0 });
    const tested = await cli('--json', 'test', dir);
    expect(tested.code).toBe(0);
    expect(JSON.parse(tested.stdout)).toMatchObject({
      passed: true,
      unit: { passed: true, tests: { failed: 0 } },
      examples: [{ index: 0, outcome: 'passed' }],
    });
    const packed = JSON.parse((await cli('--json', 'pack', dir, '-o', path.join(work, 'double.tar.gz'))).stdout);
    expect(packed.content_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((await readFile(path.join(work, 'double.tar.gz'))).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));

    expect(await cli('publish', dir, '--registry', registry.baseUrl)).toMatchObject({ code: 2 });
    const published = await cli('--json', 'publish', dir, '--registry', registry.baseUrl, '--token', ADMIN_TOKEN);
    expect(published.code).toBe(0);
    expect(JSON.parse(published.stdout)).toMatchObject({ status: 201, outcome: 'new', version: { content_hash: packed.content_hash } });
    expect((await cli('publish', dir, '--registry', registry.baseUrl, '--token', ADMIN_TOKEN)).stdout).toContain('already published');

    const promoted = await call(registry.baseUrl, 'POST', '/v1/admin/skills/double_it/versions/0.1.0/promote', {
      token: ADMIN_TOKEN,
      body: {},
    });
    expect(promoted).toMatchObject({ status: 200, body: { status: 'ACTIVE' } });
    const run = await call(registry.baseUrl, 'POST', '/v1/skills/double_it/executions?wait=20', { body: { input: { value: 21 } } });
    expect(run).toMatchObject({ body: { status: 'SUCCEEDED', output: { doubled: 42 } } });
  });

  it('init --format agent-skills: a SKILL.md + tools.yaml package that validates strictly, tests, publishes and runs its script tool', async () => {
    expect(await cli('init', '--format', 'yaml', 'demo/x_y')).toMatchObject({ code: 2 });
    const created = await cli('--json', 'init', '--format', 'agent-skills', 'demo/halve_it');
    expect(created.code).toBe(0);
    // The directory carries the SKILL.md name, as Agent Skills requires.
    const dir = path.join(work, 'demo/halve-it');
    expect(JSON.parse(created.stdout)).toMatchObject({
      created: dir,
      format: 'agent-skills',
      files: ['SKILL.md', 'tools.yaml', 'scripts/double_it.py'],
    });
    const strict = await cli('--json', 'validate', '--strict', dir);
    expect(JSON.parse(strict.stdout)).toMatchObject({ name: 'halve_it', valid: true, issues: [] });
    expect(strict.code).toBe(0);
    const tested = await cli('--json', 'test', dir);
    expect(JSON.parse(tested.stdout)).toMatchObject({ passed: true, examples: [{ tool: 'double_it', outcome: 'passed' }] });
    expect(tested.code).toBe(0);
    const published = await cli('--json', 'publish', dir, '--registry', registry.baseUrl, '--token', ADMIN_TOKEN);
    expect(JSON.parse(published.stdout)).toMatchObject({ status: 201, outcome: 'new' });
    const promoted = await call(registry.baseUrl, 'POST', '/v1/admin/skills/halve_it/versions/0.1.0/promote', {
      token: ADMIN_TOKEN,
      body: {},
    });
    expect(promoted).toMatchObject({ status: 200, body: { status: 'ACTIVE' } });
    const run = await call(registry.baseUrl, 'POST', '/v1/skills/halve_it/executions?wait=20', {
      body: { tool: 'double_it', input: { value: 21 } },
    });
    expect(run).toMatchObject({ body: { status: 'SUCCEEDED', output: { doubled: 42 } } });
  });

  it('exits non-zero with the report for an invalid package, locally and on publish', async () => {
    expect(await cli('init', 'demo/broken_one')).toMatchObject({ code: 0 });
    const dir = path.join(work, 'demo/broken_one');
    const definition = path.join(dir, 'definition.json');
    const parsed = JSON.parse(await readFile(definition, 'utf8'));
    await writeFile(definition, JSON.stringify({ ...parsed, input_schema: 'schema.Nope' }));
    const local = await cli('validate', dir);
    expect(local.code).toBe(1);
    const remote = await cli('publish', dir, '--registry', registry.baseUrl, '--token', ADMIN_TOKEN);
    expect(remote.code).toBe(1);
    expect(remote.stdout).toContain('PACKAGE_INVALID');
    expect(remote.stdout).toContain('error');
  });

  it('test: fails on a handler that no longer does what its tests and examples say, and on examples whose tools are not reachable', async () => {
    expect(await cli('init', 'demo/triple_wrong')).toMatchObject({ code: 0 });
    const dir = path.join(work, 'demo/triple_wrong');
    const handler = path.join(dir, 'handler.ts');
    await writeFile(handler, (await readFile(handler, 'utf8')).replace('input.value * 2', 'input.value * 3'));
    const wrong = await cli('--json', 'test', dir);
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout)).toMatchObject({
      passed: false,
      unit: { passed: false, tests: { failed: 1 } },
      examples: [{ outcome: 'failed', reason: expect.stringContaining('differs from the declared output') }],
    });

    const toolSkill = path.join(REPO_ROOT, 'skills/simulation/run_circuit_sim');
    const offline = await cli('test', toolSkill, '--no-unit', '--tool-adapters', 'spice=http://127.0.0.1:9/mcp');
    expect(offline.code).toBe(1);
    expect(offline.stdout).toMatch(/example 0.*not run — required tools unavailable: spice\.simulate/);
    expect((await cli('test', '--help')).stdout).toContain('--tool-adapters');
  });

  it("validates and tests Agent Skills packages too: the report, and each tool's examples in the script sandbox", async () => {
    const good = path.join(REPO_ROOT, 'test/fixtures/agent-skills/good/mesh-tools');
    expect(await cli('validate', good)).toMatchObject({ code: 0 });
    const tested = await cli('--json', 'test', good);
    expect(tested.code).toBe(0);
    expect(JSON.parse(tested.stdout)).toMatchObject({
      name: 'mesh_tools',
      passed: true,
      examples: [
        { tool: 'create_sphere', outcome: 'passed' },
        { tool: 'list_meshes', outcome: 'passed' },
      ],
    });
    const broken = await cli('validate', path.join(REPO_ROOT, 'test/fixtures/agent-skills/broken/name-mismatch'));
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain('INVALID');
  });
});
