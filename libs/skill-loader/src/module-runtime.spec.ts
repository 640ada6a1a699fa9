import { describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PackageModuleRuntime } from './module-runtime.js';

describe('PackageModuleRuntime', () => {
  it('resolves @skill-registry/sdk/testing inside packages to the same SDK copy as @skill-registry/sdk', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'skill-loader-runtime-'));
    try {
      // What a package's own spec file does: take the test helpers from the subpath, the rest from the root.
      const probe = join(dir, 'probe.ts');
      await writeFile(
        probe,
        "import { createFakeTwin, createTestContext } from '@skill-registry/sdk/testing';\n" +
          "import * as sdk from '@skill-registry/sdk';\n" +
          'export const sameCopy = createTestContext === sdk.createTestContext && createFakeTwin === sdk.createFakeTwin;\n' +
          "export const seeded = createFakeTwin({ workProducts: [{ kind: 'mesh', name: 'm', mediaType: 'text/plain', content: 'x' }] });\n",
      );
      const runtime = new PackageModuleRuntime({ transpileCacheDir: null });
      // testing.js beside a built entry, testing.ts beside a source one (as under Jest).
      expect(runtime.sdkTestingEntry).toBe(runtime.sdkEntry.replace(/index\.([jt]s)$/, 'testing.$1'));
      const exports = runtime.openScope()(probe);
      expect(exports.sameCopy).toBe(true);
      expect((exports.seeded as { writes: unknown[] }).writes).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('precompiles a source once per directory: a module another package shares is never rewritten while it may be loaded', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'precompiled-'));
    try {
      const runtime = new PackageModuleRuntime({ transpiler: 'swc' });
      const schema = { path: 'schema.ts', bytes: Buffer.from('export const A: number = 1;\n') };
      expect(runtime.precompilePackage([schema], '/pkg/one', dir)).toBe(1);
      const [compiled] = (await readdir(dir)).filter((name) => name.endsWith('.cjs'));
      const first = await stat(join(dir, compiled as string));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(runtime.precompilePackage([schema], '/pkg/two', dir)).toBe(1);
      const second = await stat(join(dir, compiled as string));
      expect(second.mtimeMs).toBe(first.mtimeMs);
      expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("does not precompile a package's own tests, which no sandbox loads", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'precompiled-tests-'));
    try {
      const runtime = new PackageModuleRuntime({ transpiler: 'swc' });
      const file = (path: string, text: string) => ({ path, bytes: Buffer.from(text) });
      const files = [
        file('handler.ts', 'export const a: number = 1;\n'),
        file('lib/units.ts', 'export const b: number = 2;\n'),
        file('handler.spec.ts', 'export const c: number = 3;\n'),
        file('lib/units.test.ts', 'export const d: number = 4;\n'),
        file('__tests__/fixtures.ts', 'export const e: number = 5;\n'),
      ];
      expect(runtime.precompilePackage(files, '/pkg/tests', dir)).toBe(2);
      expect((await readdir(dir)).filter((name) => name.endsWith('.cjs'))).toHaveLength(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a runtime precompiled ahead of time transpiles nothing itself: neither the SDK nor a precompiled package', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'precompiled-runtime-'));
    try {
      const probe = join(dir, 'probe.ts');
      const source = "import { z } from '@skill-registry/sdk';\nexport const Input = z.object({ n: z.number() });\n";
      await writeFile(probe, source);
      PackageModuleRuntime.precompileRuntime(join(dir, 'compiled'));
      new PackageModuleRuntime({ transpiler: 'swc' }).precompilePackage(
        [{ path: 'probe.ts', bytes: Buffer.from(source) }],
        dir,
        join(dir, 'compiled'),
      );
      // What a sandbox process does: Babel only for what is missing, the SDK on its first package.
      const sandbox = new PackageModuleRuntime({ transpiler: 'babel', precompiledDir: join(dir, 'compiled') });
      expect(typeof sandbox.sdk.toJsonSchema).toBe('function');
      expect(typeof sandbox.openScope()(probe).Input).toBe('object');
      expect(sandbox.transpiledHere).toBe(0);
      // And what a miss looks like: the same package, not precompiled, is transpiled here.
      const unprepared = new PackageModuleRuntime({ transpiler: 'babel', precompiledDir: join(dir, 'empty') });
      unprepared.openScope()(probe);
      expect(unprepared.transpiledHere).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
