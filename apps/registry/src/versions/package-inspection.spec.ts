import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { memoryCopyRoot } from './package-inspection.js';

describe('memoryCopyRoot: where inspected copies go by default', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'shared-memory-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a per-user directory in shared memory with room enough', () => {
    expect(memoryCopyRoot(dir, 1)).toBe(path.join(dir, `skill-registry-${process.getuid?.() ?? 'user'}`));
  });

  it('none (the sandbox root) when shared memory has less free than the minimum, as a container with 64 MB', () => {
    expect(memoryCopyRoot(dir, Number.MAX_SAFE_INTEGER)).toBeUndefined();
  });

  it('none when there is no such directory, or it is a file', () => {
    expect(memoryCopyRoot(path.join(dir, 'missing'), 1)).toBeUndefined();
    writeFileSync(path.join(dir, 'a-file'), '');
    expect(memoryCopyRoot(path.join(dir, 'a-file'), 1)).toBeUndefined();
  });
});
