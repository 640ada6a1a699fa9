// The registry's package inspector on this machine's file system: it inspects a package with and without bubblewrap,
// and the directories it makes for the copies it inspects go with it when it closes (a registry restarted many times
// must not pile them up under the sandbox root).
import { afterAll, describe, expect, it } from '@jest/globals';
import { chmod, chown, cp, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PackageInspector } from '#handler-sandbox/index.js';

const MIB = 1024 * 1024;

const options = (sandboxRoot: string, isolation: 'none' | 'bubblewrap' = 'none') => ({
  isolation,
  limits: { memoryMb: 256, addressSpaceMb: 2048, maxProcesses: 32, maxOpenFiles: 256, maxFileMb: 16, cpuSeconds: 60 },
  bounds: { maxFrameBytes: 8 * MIB, maxOutputBytes: MIB, maxMessagesPerSecond: 100, maxPendingCalls: 1 },
  timeoutMs: 10_000,
  maxShared: 1,
  inspectionsPerProcess: 10,
  idleMs: 30_000,
  sandboxRoot,
});

/** Copies the catalog's check_memory_budget where `inspector` inspects packages of `trust`, and inspects it. */
async function inspectCatalogPackage(inspector: PackageInspector, trust: 'disk' | 'published') {
  const packagePath = path.join(await inspector.copyDir(trust), 'firmware', 'check_memory_budget');
  await cp(path.resolve('skills/firmware/check_memory_budget'), packagePath, {
    recursive: true,
    filter: (source) => !source.includes('node_modules'),
  });
  return inspector.inspectorFor(trust)(
    packagePath,
    { input_schema: 'schema.CheckMemoryBudgetInput', output_schema: 'schema.CheckMemoryBudgetOutput' },
    { schema: true, handler: true },
  );
}

describe('PackageInspector workspaces', () => {
  const roots: string[] = [];
  afterAll(async () => {
    for (const root of roots) await rm(root, { recursive: true, force: true });
  });

  // HANDLER_SANDBOX=none once pointed the process at the copy's path inside bubblewrap (/skill/…): every package
  // failed to load ("Cannot find module"), so every package of a scan became a DRAFT.
  it.each(['bubblewrap', 'none'] as const)(
    'inspects a package copied for it, isolation %s: its JSON Schemas, no findings',
    async (isolation) => {
      const sandboxRoot = await mkdtemp(path.join(tmpdir(), `inspector-${isolation}-`));
      roots.push(sandboxRoot);
      const inspector = new PackageInspector(options(sandboxRoot, isolation));
      try {
        for (const trust of ['disk', 'published'] as const) {
          const inspection = await inspectCatalogPackage(inspector, trust);
          expect(inspection.issues.filter((issue) => issue.severity === 'error')).toEqual([]);
          expect(inspection.inputJsonSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['regions']) });
          expect(inspection.outputJsonSchema).toMatchObject({ type: 'object' });
        }
      } finally {
        await inspector.close();
      }
    },
  );

  it('removes its copy directories, and the directory that held them, when it closes', async () => {
    const sandboxRoot = await mkdtemp(path.join(tmpdir(), 'inspector-workspaces-'));
    roots.push(sandboxRoot);
    const inspector = new PackageInspector(options(sandboxRoot));
    const disk = await inspector.copyDir('disk');
    const published = await inspector.copyDir('published');
    const inspection = path.join(sandboxRoot, 'inspection');
    expect(await readdir(inspection)).toHaveLength(1);
    expect([disk, published].every((dir) => dir.startsWith(inspection))).toBe(true);

    await inspector.close();
    expect(await readdir(inspection)).toEqual([]);
  });

  it('puts the copies under copyRoot when given one (the registry: /dev/shm), and removes them from there', async () => {
    const sandboxRoot = await mkdtemp(path.join(tmpdir(), 'inspector-sandbox-'));
    const copyRoot = path.join(await mkdtemp(path.join(tmpdir(), 'inspector-copies-')), 'copies');
    roots.push(sandboxRoot, path.dirname(copyRoot));
    const inspector = new PackageInspector({ ...options(sandboxRoot), copyRoot });
    const disk = await inspector.copyDir('disk');
    expect(disk.startsWith(path.join(copyRoot, 'inspection') + path.sep)).toBe(true);
    expect((await stat(copyRoot)).mode & 0o777).toBe(0o755);
    await inspector.close();
    expect(await readdir(path.join(copyRoot, 'inspection'))).toEqual([]);
  });

  it('refuses a copy directory another user made (PACKAGE_INSPECTION_DIR): they could change the code it inspects', async () => {
    const sandboxRoot = await mkdtemp(path.join(tmpdir(), 'inspector-sandbox-'));
    const copyRoot = await mkdtemp(path.join(tmpdir(), 'inspector-planted-'));
    roots.push(sandboxRoot, copyRoot);
    await chown(copyRoot, 65534, 65534); // the tests run as root; 65534 stands for another user
    const inspector = new PackageInspector({ ...options(sandboxRoot), copyRoot });
    try {
      await expect(inspector.copyDir('disk')).rejects.toThrow(/belongs to uid 65534.*PACKAGE_INSPECTION_DIR/s);
      expect(await readdir(copyRoot)).toEqual([]);
    } finally {
      await inspector.close();
    }
  });

  // The compiler writes four files per TypeScript module (the code and its map, each to a temporary name and renamed):
  // on the disk they waited on its journal, 3.0–3.2 s of the compiler's CPU for 1,000 new packages against 1.1 s in memory.
  it('precompiles the packages it inspects under copyRoot too, not under the sandbox root, and removes them when it closes', async () => {
    const sandboxRoot = await mkdtemp(path.join(tmpdir(), 'inspector-sandbox-'));
    const copyRoot = path.join(await mkdtemp(path.join(tmpdir(), 'inspector-copies-')), 'copies');
    roots.push(sandboxRoot, path.dirname(copyRoot));
    await chmod(path.dirname(copyRoot), 0o755); // as /dev/shm is: the sandbox user passes through it to the copies
    const inspector = new PackageInspector({ ...options(sandboxRoot, 'bubblewrap'), copyRoot });
    const compiledHere = path.join(copyRoot, 'compiled');
    try {
      for (const trust of ['disk', 'published'] as const) {
        const inspection = await inspectCatalogPackage(inspector, trust);
        expect(inspection.issues.filter((issue) => issue.severity === 'error')).toEqual([]);
      }
      const [shared, ...others] = await readdir(compiledHere);
      expect(others).toEqual([]); // the published package's own directory went with its inspection
      expect(shared).toMatch(/-shared-disk-\d+-[0-9a-f]+$/);
      expect((await readdir(path.join(compiledHere, shared as string))).filter((name) => name.endsWith('.ts.cjs')).length).toBeGreaterThan(
        0,
      );
      expect((await stat(compiledHere)).mode & 0o777).toBe(0o755);
      // Under the sandbox root: the runtime's modules alone, compiled once for every sandbox.
      expect((await readdir(path.join(sandboxRoot, 'compiled'))).every((name) => name.startsWith('runtime-'))).toBe(true);
    } finally {
      await inspector.close();
    }
    expect(await readdir(compiledHere)).toEqual([]);
  });
});
