import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { packPackageArchive, readPackageDir } from '#package-store/index.js';
import { freePort, isolateScratchRoot, startAdapterProcess, type AdapterProcess } from '../adapters/support.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';

/**
 * Seed 001 §3: registration checks every `tools_required` id against the configured adapters (an error when no
 * adapter declares it, a warning when its adapter is down, and a DRAFT held back only by that is checked again on
 * the next scan), and GET /v1/tools carries each tool's category, timeout, idempotence and feature flag.
 */
describe('required tools at registration (registry in process, a real spice adapter)', () => {
  let db: TestDatabase;
  let root: string;
  // A process of its own, as in production: the registry's discovery keeps this process busy, and an adapter
  // in it could not answer tools/list in time (the check would then rightly say it could not tell).
  let spice: AdapterProcess;
  let spiceUrl: string;
  let downPort: number;
  let registry: RunningRegistry | undefined;
  isolateScratchRoot();

  const requiring = (name: string, toolId: string) =>
    writeEchoSkill(root, { name, definition: { tools_required: [{ tool_id: toolId, capability: 'circuit_simulation' }] } });
  const versionOf = async (name: string) => (await call(registry!.baseUrl, 'GET', `/v1/skills/${name}/versions/1.0.0`)).body;
  const toolFindings = (version: { validation: { category: string; message: string }[] }) =>
    version.validation.filter((issue) => issue.category === 'tools');

  beforeAll(async () => {
    db = await createTestDatabase('required_tools');
    root = await tempRoot();
    const port = await freePort();
    spice = await startAdapterProcess('spice', port);
    spiceUrl = `http://127.0.0.1:${port}/mcp`;
    downPort = await freePort();
    await requiring('needs_spice', 'spice.simulate');
    await requiring('needs_typo', 'spice.simulat');
    await requiring('needs_gmsh', 'gmsh.measure');
    await requiring('needs_kicad', 'kicad.run_drc');
  }, 60_000);

  afterAll(async () => {
    await registry?.stop();
    await spice?.kill();
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  it('registers a declared tool cleanly, warns for a down adapter, and keeps an undeclared tool or unknown adapter in DRAFT', async () => {
    registry = await startRegistry({
      databaseUrl: db.url,
      skillPaths: [root],
      env: { TOOL_ADAPTERS: `spice=${spiceUrl},gmsh=http://127.0.0.1:${downPort}/mcp` },
    });
    const clean = await versionOf('needs_spice');
    expect(clean.status).toBe('REGISTERED');
    expect(toolFindings(clean)).toEqual([]);

    const typo = await versionOf('needs_typo');
    expect(typo.status).toBe('DRAFT');
    expect(toolFindings(typo)).toEqual([
      expect.objectContaining({
        severity: 'error',
        path: '/tools_required/0/tool_id',
        message: expect.stringContaining("adapter 'spice' declares no tool 'simulat' (it declares: simulate)"),
      }),
    ]);

    const down = await versionOf('needs_gmsh');
    expect(down.status).toBe('REGISTERED');
    expect(toolFindings(down)).toEqual([
      expect.objectContaining({ severity: 'warning', message: expect.stringContaining("adapter 'gmsh' is unreachable") }),
    ]);

    const unknown = await versionOf('needs_kicad');
    expect(unknown.status).toBe('DRAFT');
    expect(toolFindings(unknown)).toEqual([
      expect.objectContaining({ severity: 'error', message: expect.stringContaining("no configured adapter is named 'kicad'") }),
    ]);
  }, 60_000);

  it('refuses a published package whose required tool no adapter declares, naming the tool', async () => {
    const staging = await tempRoot();
    const dir = await writeEchoSkill(staging, {
      name: 'acme_typo',
      definition: { tools_required: [{ tool_id: 'spice.simualte', capability: 'circuit_simulation' }] },
    });
    const archive = await packPackageArchive(await readPackageDir(dir));
    await rm(staging, { recursive: true, force: true });
    const response = await fetch(`${registry!.baseUrl}/v1/packages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/gzip' },
      body: archive,
    });
    const body = (await response.json()) as { errors?: { message: string }[]; detail?: string };
    expect(response.status).toBe(422);
    expect(JSON.stringify(body)).toContain('spice.simualte');
    expect((await call(registry!.baseUrl, 'GET', '/v1/skills/acme_typo')).status).toBe(404);
  });

  it("lists each adapter tool with seed 001 §3.2's fields", async () => {
    const { status, body } = await call(registry!.baseUrl, 'GET', '/v1/tools');
    expect(status).toBe(200);
    expect(body.items).toEqual([
      expect.objectContaining({
        tool_id: 'spice.simulate',
        category: 'computation',
        idempotent: true,
        requires_feature_flag: null,
        timeout_seconds: expect.any(Number),
        available: true,
        disabled: false,
      }),
    ]);
    expect(body.adapters.map((adapter: { adapter: string; reachable: boolean }) => [adapter.adapter, adapter.reachable])).toEqual([
      ['spice', true],
      ['gmsh', false],
    ]);
  });

  it('checks a DRAFT held back only by its tools again on the next start; its fixed package registers', async () => {
    await registry!.stop();
    registry = await startRegistry({
      databaseUrl: db.url,
      skillPaths: [root],
      env: { TOOL_ADAPTERS: `spice=${spiceUrl},kicad=${spiceUrl}` },
    });
    // kicad (here the spice server under another name) still declares no run_drc: an error again, the DRAFT stays.
    const unknown = await versionOf('needs_kicad');
    expect(unknown.status).toBe('DRAFT');
    expect(toolFindings(unknown)[0].message).toContain("adapter 'kicad' declares no tool 'run_drc'");
    // spice.simulat is still a typo: unchanged.
    expect((await versionOf('needs_typo')).status).toBe('DRAFT');

    await registry!.stop();
    await writeEchoSkill(root, {
      name: 'needs_typo',
      definition: { tools_required: [{ tool_id: 'spice.simulate', capability: 'circuit_simulation' }] },
    });
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root], env: { TOOL_ADAPTERS: `spice=${spiceUrl}` } });
    const fixed = await versionOf('needs_typo');
    expect(fixed.status).toBe('REGISTERED');
    expect(toolFindings(fixed)).toEqual([]);
  }, 60_000);

  it('registers a DRAFT held back only by an unconfigured adapter once that adapter is configured, without a change of its package', async () => {
    await registry!.stop();
    const kicadPort = await freePort();
    const kicad = await startAdapterProcess('kicad', kicadPort);
    try {
      registry = await startRegistry({
        databaseUrl: db.url,
        skillPaths: [root],
        env: { TOOL_ADAPTERS: `spice=${spiceUrl},kicad=http://127.0.0.1:${kicadPort}/mcp` },
      });
      const now = await versionOf('needs_kicad');
      expect(now.status).toBe('REGISTERED');
      expect(toolFindings(now)).toEqual([]);
    } finally {
      await registry?.stop();
      registry = undefined;
      await kicad.kill();
    }
  }, 60_000);
});
