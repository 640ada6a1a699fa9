import { afterAll, describe, expect, it } from '@jest/globals';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

  it('none (the sandbox root) when another user made a directory of that name first, or a link, or one anyone may write to', () => {
    const plants = [
      (candidate: string) => {
        mkdirSync(candidate, { mode: 0o755 });
        chownSync(candidate, 65534, 65534); // the tests run as root, as CI does
      },
      (candidate: string) => symlinkSync(dir, candidate),
      (candidate: string) => {
        mkdirSync(candidate);
        chmodSync(candidate, 0o777);
      },
    ];
    for (const [index, plant] of plants.entries()) {
      const shared = path.join(dir, `planted-${index}`);
      mkdirSync(shared);
      plant(path.join(shared, `skill-registry-${process.getuid?.() ?? 'user'}`));
      expect(memoryCopyRoot(shared, 1)).toBeUndefined();
    }
  });

  it('none when there is no such directory, or it is a file', () => {
    expect(memoryCopyRoot(path.join(dir, 'missing'), 1)).toBeUndefined();
    writeFileSync(path.join(dir, 'a-file'), '');
    expect(memoryCopyRoot(path.join(dir, 'a-file'), 1)).toBeUndefined();
  });
});
