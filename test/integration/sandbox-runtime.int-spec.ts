// The runtime a sandbox process loads is precompiled whole by the compiler process: a runtime given the launcher's
// precompiled directory transpiles nothing to load the skill SDK. Since 21fa098 (the SDK loaded on first use) the
// compiler had recorded only the scope entry, and every sandbox process transpiled the SDK with Babel at its start
// (~0.55 s of CPU; a never-seen version's first run twice as slow).
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HandlerLauncher } from '#handler-sandbox/index.js';
import { PackageModuleRuntime } from '#skill-loader/module-runtime.js';
import { REPO_ROOT } from '../support/skill-packages.js';

describe('the sandbox runtime, precompiled', () => {
  const roots: string[] = [];
  afterAll(async () => {
    for (const root of roots) await rm(root, { recursive: true, force: true });
  });

  it('holds every module of the SDK: a runtime loading it from there transpiles none', async () => {
    const sandboxRoot = await mkdtemp(path.join(tmpdir(), 'sandbox-runtime-'));
    roots.push(sandboxRoot);
    const launcher = new HandlerLauncher({
      isolation: 'none',
      sandboxRoot,
      maxFrameBytes: 1024 * 1024,
      limits: { memoryMb: 256, addressSpaceMb: 2048, maxProcesses: 32, maxOpenFiles: 256, maxFileMb: 16, cpuSeconds: 60 },
    });
    try {
      const compiled = await launcher.sharedCompiledDir('runtime-test');
      expect(compiled).not.toBeNull();
      // The SDK as the sandbox's staged runtime holds it: the built one.
      const sdkEntry = path.join(await realpath(path.join(REPO_ROOT, 'node_modules/@skill-registry/sdk')), 'dist/index.js');
      const runtime = new PackageModuleRuntime({ transpiler: 'babel', precompiledDir: compiled, sdkEntry });
      expect(typeof runtime.sdk.toJsonSchema).toBe('function');
      runtime.openScope();
      expect(runtime.transpiledHere).toBe(0);
    } finally {
      await launcher.close();
    }
  });
});
