// The registry's package inspector on this machine's file system: the directories it makes for the copies it
// inspects go with it when it closes (a registry restarted many times must not pile them up under the sandbox root).
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PackageInspector } from '#handler-sandbox/index.js';

const MIB = 1024 * 1024;

describe('PackageInspector workspaces', () => {
  const roots: string[] = [];
  afterAll(async () => {
    for (const root of roots) await rm(root, { recursive: true, force: true });
  });

  it('removes its copy directories, and the directory that held them, when it closes', async () => {
    const sandboxRoot = await mkdtemp(path.join(tmpdir(), 'inspector-workspaces-'));
    roots.push(sandboxRoot);
    const inspector = new PackageInspector({
      isolation: 'none',
      limits: { memoryMb: 256, addressSpaceMb: 2048, maxProcesses: 32, maxOpenFiles: 256, maxFileMb: 16, cpuSeconds: 60 },
      bounds: { maxFrameBytes: 8 * MIB, maxOutputBytes: MIB, maxMessagesPerSecond: 100, maxPendingCalls: 1 },
      timeoutMs: 10_000,
      maxShared: 1,
      inspectionsPerProcess: 10,
      idleMs: 30_000,
      sandboxRoot,
    });
    const disk = await inspector.copyDir('disk');
    const published = await inspector.copyDir('published');
    const inspection = path.join(sandboxRoot, 'inspection');
    expect(await readdir(inspection)).toHaveLength(1);
    expect([disk, published].every((dir) => dir.startsWith(inspection))).toBe(true);

    await inspector.close();
    expect(await readdir(inspection)).toEqual([]);
  });
});
