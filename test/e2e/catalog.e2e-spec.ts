import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { findSkillPackages } from '#skill-loader/index.js';
import { freePort, startAdapterProcess, type AdapterProcess } from '../adapters/support.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import {
  activate,
  attemptsRecorded,
  eventually,
  EXECUTION_SKILLS_ROOT,
  markerDir,
  obliterateQueue,
  readSse,
  waitForTerminal,
} from '../support/executions.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { REPO_ROOT } from '../support/skill-packages.js';

const ADAPTERS = ['spice', 'calculix', 'gmsh', 'kicad'] as const;
const CATALOG_ROOT = path.join(REPO_ROOT, 'skills');
/** Older versions of catalog skills, kept registered from disk beside their successors (see skills/previous/README.md). */
const PREVIOUS_ROOT = path.join(CATALOG_ROOT, 'previous');

interface CatalogPackage {
  name: string;
  version: string;
  dir: string;
  examples: { input: Record<string, unknown>; output?: unknown; twin?: unknown }[];
}

async function readCatalog(dirs: string[]): Promise<CatalogPackage[]> {
  const packages: CatalogPackage[] = [];
  for (const dir of dirs) {
    const definition = JSON.parse(await readFile(path.join(dir, 'definition.json'), 'utf8'));
    packages.push({ name: definition.name, version: definition.version, dir, examples: definition.examples ?? [] });
  }
  return packages.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The Phase-1 catalog end to end: every skill promoted through its own examples (run for real by
 * the executor, through the real adapters as separate processes) and executed over REST; and the
 * executor's behaviour when an adapter dies mid-call and comes back.
 */
describe('Phase-1 catalog with real tool adapters', () => {
  let db: TestDatabase;
  let markers: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  const adapters = new Map<string, { process: AdapterProcess; port: number }>();
  const queuePrefix = `test-catalog-${process.pid}-${Date.now()}`;
  /** The newest version of each skill, and the previous versions still registered. */
  let catalog: CatalogPackage[] = [];
  let previous: CatalogPackage[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('catalog');
    markers = await markerDir();
    for (const name of ADAPTERS) {
      const port = await freePort();
      adapters.set(name, { process: await startAdapterProcess(name, port), port });
    }
    const toolAdapters = [...adapters].map(([name, { port }]) => `${name}=http://127.0.0.1:${port}/mcp`).join(',');
    registry = await startRegistry({
      databaseUrl: db.url,
      skillPaths: [CATALOG_ROOT, EXECUTION_SKILLS_ROOT],
      queuePrefix,
      env: { TOOL_ADAPTERS: toolAdapters },
    });
    executor = await startExecutor({
      databaseUrl: db.url,
      queuePrefix,
      env: { TOOL_ADAPTERS: toolAdapters, RETRY_BASE_MS: '6000', RETRY_MAX_MS: '6000' },
    });
    const dirs = await findSkillPackages([CATALOG_ROOT]);
    const isPrevious = (dir: string) => dir.startsWith(`${PREVIOUS_ROOT}${path.sep}`);
    catalog = await readCatalog(dirs.filter((dir) => !isPrevious(dir)));
    previous = await readCatalog(dirs.filter(isPrevious));
  }, 120_000);

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    for (const { process } of adapters.values()) await process.kill();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(markers, { recursive: true, force: true });
  });

  it('holds the twelve Phase-1 skills, all REGISTERED with clean validation, and the previous versions of three', async () => {
    expect(catalog.map((skill) => skill.name)).toEqual([
      'check_memory_budget',
      'check_tolerances',
      'compare_results',
      'export_bom',
      'export_mesh',
      'generate_scaffold',
      'run_circuit_sim',
      'run_drc',
      'run_erc',
      'run_thermal',
      'validate_pinmap',
      'validate_stress',
    ]);
    for (const skill of catalog) {
      const { body } = await call(registry.baseUrl, 'GET', `/v1/skills/${skill.name}`);
      expect({
        name: skill.name,
        version: body.version,
        status: body.status,
        errors: body.validation.filter((i: { severity: string }) => i.severity === 'error'),
      }).toEqual({
        name: skill.name,
        version: skill.version,
        status: 'REGISTERED',
        errors: [],
      });
      expect(skill.examples.length).toBeGreaterThan(0);
      for (const tool of body.tools_status ?? []) expect({ skill: skill.name, ...tool }).toMatchObject({ available: true });
    }
    expect(previous.map((skill) => [skill.name, skill.version])).toEqual([
      ['export_mesh', '0.1.0'],
      ['run_thermal', '0.1.0'],
      ['validate_stress', '0.1.0'],
    ]);
    for (const skill of previous) {
      const { body } = await call(registry.baseUrl, 'GET', `/v1/skills/${skill.name}/versions/${skill.version}`);
      expect({
        name: skill.name,
        status: body.status,
        errors: body.validation.filter((i: { severity: string }) => i.severity === 'error'),
      }).toEqual({
        name: skill.name,
        status: 'REGISTERED',
        errors: [],
      });
    }
  });

  it('promotes every version to ACTIVE by running its examples for real (the previous versions first)', async () => {
    for (const skill of [...previous, ...catalog]) {
      const promoted = await call(registry.baseUrl, 'POST', `/v1/admin/skills/${skill.name}/versions/${skill.version}/promote`, {
        token: ADMIN_TOKEN,
        body: { reason: 'examples pass against the real programs' },
      });
      expect({ skill: skill.name, status: promoted.status, body: promoted.status === 200 ? 'ok' : promoted.body }).toEqual({
        skill: skill.name,
        status: 200,
        body: 'ok',
      });
      const history = (await call(registry.baseUrl, 'GET', `/v1/skills/${skill.name}/history`)).body.items;
      const event = history.filter((item: { version: string }) => item.version === skill.version).at(-1);
      expect(event.forced).toBe(false);
      for (const example of event.evidence.examples) expect(example.execution_status).toBe('SUCCEEDED');
    }
  }, 600_000);

  it('executes every version over REST on its examples and returns validated output', async () => {
    // Examples with twin fixtures need their work products on the branch: promotion seeds those, a bare execution does not.
    const runs = [...previous, ...catalog].flatMap((skill) =>
      skill.examples.filter((example) => example.twin === undefined).map((example) => ({ skill, example })),
    );
    for (const { skill, example } of runs) {
      const { status, body } = await call(registry.baseUrl, 'POST', `/v1/skills/${skill.name}/executions?wait=60`, {
        body: { input: example.input, version: skill.version },
      });
      expect({ skill: `${skill.name}@${skill.version}`, status, state: body.status, error: body.error }).toEqual({
        skill: `${skill.name}@${skill.version}`,
        status: 200,
        state: 'SUCCEEDED',
        error: null,
      });
      if (example.output !== undefined) expect(body.output).toEqual(example.output);
    }
  }, 600_000);

  it('an adapter killed mid-call fails a non-idempotent skill once with TOOL_ERROR, and a restarted adapter is used again', async () => {
    await activate(registry.baseUrl, ['tool_sim_once', 'tool_sim_idempotent']);
    const marker = path.join(markers, 'once');
    const started = await call(registry.baseUrl, 'POST', '/v1/skills/tool_sim_once/executions', { body: { input: { marker, stop_s: 3 } } });
    await eventually(async () => (await attemptsRecorded(marker)) === 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await restartAdapter('spice');
    const final = await waitForTerminal(registry.baseUrl, started.body.id, 60_000);
    expect(final).toMatchObject({ status: 'FAILED', attempts: 1 });
    expect(['TOOL_ERROR', 'TOOL_TIMEOUT']).toContain(final.error.code);
    expect(await attemptsRecorded(marker)).toBe(1);

    // The same registry and executor use the restarted adapter as soon as their bridges see it again
    // (an unreachable adapter is probed again within a second).
    let again: { body: any } = { body: null };
    await eventually(async () => {
      again = await call(registry.baseUrl, 'POST', '/v1/skills/tool_sim_once/executions?wait=60', {
        body: { input: { marker: path.join(markers, `after-restart-${Date.now()}`), stop_s: 0.05 } },
      });
      return again.body.status === 'SUCCEEDED';
    }, 15_000);
    expect(again.body).toMatchObject({ status: 'SUCCEEDED', output: { attempt: 1 } });
    const tools = (await call(registry.baseUrl, 'GET', '/v1/tools?capability=circuit_simulation')).body.items;
    expect(tools).toEqual([expect.objectContaining({ tool_id: 'spice.simulate', available: true })]);
  }, 120_000);

  it('an adapter killed mid-call is retried for an idempotent skill, which then completes', async () => {
    const marker = path.join(markers, 'idem');
    const started = await call(registry.baseUrl, 'POST', '/v1/skills/tool_sim_idempotent/executions', {
      body: { input: { marker, stop_s: 3 } },
    });
    await eventually(async () => (await attemptsRecorded(marker)) === 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await restartAdapter('spice');
    const final = await waitForTerminal(registry.baseUrl, started.body.id, 90_000);
    expect(final.attempts).toBeGreaterThanOrEqual(2);
    expect(final).toMatchObject({ status: 'SUCCEEDED' });
    const events = await readSse(registry.baseUrl, started.body.id);
    const failed = events.find((e) => e.type === 'attempt_failed');
    expect(['TOOL_ERROR', 'TOOL_TIMEOUT']).toContain(failed?.data.error.code);
    expect(events.filter((e) => e.type === 'tool_invoked').length).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('a tool call that outlives its timeout fails with TOOL_TIMEOUT (not retried: the skill is not idempotent)', async () => {
    await activate(registry.baseUrl, ['tool_sim_timeout']);
    const { body } = await call(registry.baseUrl, 'POST', '/v1/skills/tool_sim_timeout/executions?wait=30', {
      body: { input: { marker: path.join(markers, 'timeout'), stop_s: 3 } },
    });
    expect(body).toMatchObject({ status: 'FAILED', attempts: 1, error: { code: 'TOOL_TIMEOUT' } });
    expect(body.error.message).toContain('spice.simulate');
    const events = await readSse(registry.baseUrl, body.id);
    expect(events.find((e) => e.type === 'tool_completed')?.data).toMatchObject({
      tool_id: 'spice.simulate',
      ok: false,
      error: { code: 'TOOL_TIMEOUT' },
    });
  }, 60_000);

  async function restartAdapter(name: string): Promise<void> {
    const adapter = adapters.get(name)!;
    await adapter.process.kill();
    adapter.process = await startAdapterProcess(name, adapter.port);
  }
});
