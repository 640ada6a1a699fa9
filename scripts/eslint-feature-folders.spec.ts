import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { featureFolders } from './eslint-feature-folders.mjs';

/** A src/ tree on disk: the rule reads the other folder's imports from there. */
const TREE: Record<string, string> = {
  'a/uses-b.ts': "import { y } from '../b/y.js';\nexport const x = y;\n",
  'a/z.ts': 'export const z = 1;\n',
  'b/y.ts': "import { z } from '../a/z.js';\nexport const y = z;\n",
  'c/uses-a.ts': "export { x } from '../a/uses-b.js';\n",
  'c/lazy.ts': "export const load = () => import('../d/d.js');\n",
  'd/d.ts': "import type { T } from '../c/types.js';\nexport const d: T = 1;\n",
  'c/types.ts': 'export type T = number;\n',
  'b/y.spec.ts': "import { load } from '../c/lazy.js';\n",
};

describe('feature-folders/no-mutual-folders', () => {
  let root: string;
  let src: string;
  const config = [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { 'feature-folders': featureFolders },
      rules: { 'feature-folders/no-mutual-folders': 'error' as const },
    },
  ];
  const lint = (file: string) =>
    new Linter({ configType: 'flat', cwd: root })
      .verify(TREE[file] as string, config as Linter.Config[], { filename: path.join(src, file) })
      .map((message) => message.message);

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'feature-folders-'));
    src = path.join(root, 'apps', 'demo', 'src');
    for (const [file, text] of Object.entries(TREE)) {
      await mkdir(path.dirname(path.join(src, file)), { recursive: true });
      await writeFile(path.join(src, file), text);
    }
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('reports both sides of two folders that import each other, naming the file that imports back', () => {
    expect(lint('a/uses-b.ts')).toEqual([expect.stringContaining('a/ imports b/ and b/ imports a/ (b/y.ts)')]);
    expect(lint('b/y.ts')).toEqual([expect.stringContaining('b/ imports a/ and a/ imports b/ (a/uses-b.ts)')]);
  });

  it('sees re-exports, type imports and dynamic imports', () => {
    expect(lint('c/lazy.ts')).toEqual([expect.stringContaining('c/ imports d/ and d/ imports c/ (d/d.ts)')]);
    expect(lint('d/d.ts')).toEqual([expect.stringContaining('d/ imports c/ and c/ imports d/')]);
  });

  it('lets one folder stand on another, and ignores specs on either side', () => {
    expect(lint('c/uses-a.ts')).toEqual([]);
    expect(lint('b/y.spec.ts')).toEqual([]);
  });
});
