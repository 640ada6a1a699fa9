import { mkdir, mkdtemp, rm, stat, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { inputRejected, ToolFailure } from './tool-failure.js';

const SEGMENT = /^[A-Za-z0-9_+\-.]+$/;

/**
 * Check a file name given in tool parameters: a relative path of plain segments (letters, digits, `_`, `+`,
 * `-`, `.`), no `..`, no absolute path, no backslash. Returns the normalised name or throws INPUT_REJECTED.
 */
export function safeRelativeName(name: string, what = 'file name'): string {
  if (typeof name !== 'string' || name.length === 0) throw inputRejected(`${what} is empty`);
  if (name.length > 200) throw inputRejected(`${what} '${name.slice(0, 40)}…' is longer than 200 characters`);
  if (name.includes('\0')) throw inputRejected(`${what} contains a NUL character`);
  if (name.includes('\\')) throw inputRejected(`${what} '${name}' contains a backslash; use '/' between directories`);
  if (isAbsolute(name) || name.startsWith('~')) {
    throw inputRejected(`${what} '${name}' is an absolute path; files live in the call's scratch directory, give a relative name`);
  }
  const segments = name.split('/');
  if (segments.some((segment) => segment === '..')) {
    throw inputRejected(`${what} '${name}' contains '..' and would escape the call's scratch directory`);
  }
  for (const segment of segments) {
    if (segment === '' || segment === '.' || !SEGMENT.test(segment)) {
      throw inputRejected(`${what} '${name}' has an invalid path segment '${segment}' (allowed: letters, digits, '_', '+', '-', '.')`);
    }
  }
  return segments.join('/');
}

/** A fresh private directory for one call, removed (with everything in it) when `work` settles. */
export async function withScratchDir<T>(prefix: string, work: (dir: string) => Promise<T>): Promise<T> {
  const root = process.env.SCRATCH_ROOT || tmpdir();
  const dir = await mkdtemp(join(root, `${prefix}-`));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** Resolve `name` inside `dir`, refusing anything that would land outside it. */
function insideDir(dir: string, name: string, what = 'file name'): string {
  const safe = safeRelativeName(name, what);
  const target = resolve(dir, safe);
  const rel = relative(dir, target);
  if (rel.startsWith('..') || isAbsolute(rel) || rel === '') {
    throw inputRejected(`${what} '${name}' does not resolve inside the call's scratch directory`);
  }
  return target;
}

/** Write an input file (contents from the tool parameters) under a checked relative name; never overwrites. */
export async function writeInputFile(dir: string, name: string, contents: string, what = 'file name'): Promise<string> {
  const target = insideDir(dir, name, what);
  await mkdir(dirname(target), { recursive: true });
  try {
    await writeFile(target, contents, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw inputRejected(`${what} '${name}' is given twice`);
    throw error;
  }
  return target;
}

/** Read a file the program wrote, refusing files larger than `maxBytes`; null when it does not exist. */
export async function readResultFile(dir: string, name: string, maxBytes: number): Promise<string | null> {
  const target = join(dir, name);
  if (!target.startsWith(dir + sep)) throw new ToolFailure('INTERNAL', `result file '${name}' is outside the scratch directory`);
  let size: number;
  try {
    size = (await stat(target)).size;
  } catch {
    return null;
  }
  if (size > maxBytes) {
    throw new ToolFailure(
      'OUTPUT_LIMIT',
      `result file '${name}' is ${size} bytes, over the adapter's limit of ${maxBytes} bytes (MAX_OUTPUT_BYTES); make the model or the requested output smaller`,
    );
  }
  return readFile(target, 'utf8');
}
