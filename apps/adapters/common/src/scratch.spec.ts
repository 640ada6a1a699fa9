import { describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { safeRelativeName, writeInputFile } from './scratch.js';
import { ToolFailure } from './tool-failure.js';

describe('safeRelativeName', () => {
  it.each(['model.inp', 'mesh/part_1.inp', 'lib/opamp+v2.lib'])('accepts %p', (name) => {
    expect(safeRelativeName(name)).toBe(name);
  });

  it.each([
    ['../x.inp', "contains '..' and would escape"],
    ['mesh/../../x', "contains '..' and would escape"],
    ['/etc/passwd', 'is an absolute path'],
    ['~/x', 'is an absolute path'],
    ['a\\b', 'contains a backslash'],
    ['a//b', 'invalid path segment'],
    ['./a', "invalid path segment '.'"],
    ['my file.inp', 'invalid path segment'],
    ['', 'is empty'],
  ])('refuses %p', (name, message) => {
    let caught: unknown;
    try {
      safeRelativeName(name);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ToolFailure);
    expect((caught as ToolFailure).code).toBe('INPUT_REJECTED');
    expect((caught as ToolFailure).message).toContain(message);
  });
});

describe('writeInputFile', () => {
  it('writes inside the directory and refuses to overwrite', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'scratch-spec-'));
    try {
      await writeInputFile(dir, 'sub/a.inp', 'x');
      expect(await readFile(join(dir, 'sub/a.inp'), 'utf8')).toBe('x');
      await expect(writeInputFile(dir, 'sub/a.inp', 'y')).rejects.toThrow("'sub/a.inp' is given twice");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
