import { describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
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
});
