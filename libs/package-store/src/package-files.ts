import { createHash } from 'node:crypto';
import {
  type Stats,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';

/** One file of a package as the store keeps it: POSIX relative path, normalised mode, bytes. */
export interface PackageFile {
  path: string;
  /** 0o644, or 0o755 for an executable file: nothing else of a file's mode is content. */
  mode: number;
  bytes: Buffer;
}

/** A manifest entry: what the package hash covers for each file. */
export interface ManifestEntry {
  path: string;
  size: number;
  mode: number;
  sha256: string;
}

/** Limits of one package; defaults a user would expect, configurable. */
export interface PackageLimits {
  maxTotalBytes: number;
  maxFiles: number;
  maxFileBytes: number;
}

export const DEFAULT_PACKAGE_LIMITS: PackageLimits = { maxTotalBytes: 20 * 1024 * 1024, maxFiles: 2000, maxFileBytes: 10 * 1024 * 1024 };

/** A package over one of its limits; `limit` names it (e.g. `PACKAGE_MAX_FILES`). */
export class PackageTooLarge extends Error {
  constructor(
    readonly limit: 'PACKAGE_MAX_BYTES' | 'PACKAGE_MAX_FILES' | 'PACKAGE_MAX_FILE_BYTES',
    readonly value: number,
    readonly max: number,
    readonly entry?: string,
  ) {
    super(
      `package exceeds ${limit} (${max}${limit === 'PACKAGE_MAX_FILES' ? ' files' : ' bytes'}): ${entry ? `'${entry}' has ` : ''}${value}`,
    );
    this.name = 'PackageTooLarge';
  }
}

/**
 * A package's symbolic link to a file outside its own directory. Followed, it would make any file the reader may read a
 * file of the package, stored and served back to anyone: `/proc/self/environ` (the registry's own tokens and database
 * password) or `/etc/shadow` from a package on SKILL_PATHS (a checkout of someone else's repository, say).
 */
export class PackageLinkOutside extends Error {
  constructor(readonly entry: string) {
    super(`'${entry}' is a symbolic link to a file outside the package: a package's files must be its own (copy the file in)`);
    this.name = 'PackageLinkOutside';
  }
}

/**
 * The file the symbolic link at `absolute` (the package entry `entry`) leads to, when it lies inside `realRoot` (the
 * package directory's real path): its real path and status. Null when it leads to no regular file (dangling, a loop,
 * no permission, a directory — not followed, it could loop — or a device): left out, as before. Throws
 * PackageLinkOutside for a file outside the package.
 */
export function linkedFileInside(realRoot: string, absolute: string, entry: string): { path: string; info: Stats } | null {
  let target: string;
  try {
    target = realpathSync(absolute);
  } catch {
    return null;
  }
  const info = statSync(target, { throwIfNoEntry: false });
  if (!info?.isFile()) return null;
  const inside = relative(realRoot, target);
  if (inside.startsWith('..') || isAbsolute(inside)) throw new PackageLinkOutside(entry);
  return { path: target, info };
}

/** Folder and file names that are never content: dependencies, VCS and editor folders, build output. */
export function isSkippedEntry(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules' || name === 'dist';
}

export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function normaliseMode(mode: number): number {
  return mode & 0o111 ? 0o755 : 0o644;
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The manifest of `files`, sorted by path (code units). */
export function manifestOf(files: PackageFile[]): ManifestEntry[] {
  return files
    .map((file) => ({ path: file.path, size: file.bytes.length, mode: normaliseMode(file.mode), sha256: sha256Hex(file.bytes) }))
    .sort((a, b) => compareCodeUnits(a.path, b.path));
}

/**
 * The package's content hash: `sha256:` over the canonical manifest, one line per file in path
 * order, `<path>\0<size>\0<mode, octal>\0<sha256>\n`. Identical content gives the same hash
 * wherever and however the package arrived.
 */
export function manifestHash(manifest: ManifestEntry[]): string {
  const hash = createHash('sha256');
  for (const entry of [...manifest].sort((a, b) => compareCodeUnits(a.path, b.path))) {
    hash.update(`${entry.path}\0${entry.size}\0${normaliseMode(entry.mode).toString(8)}\0${entry.sha256}\n`);
  }
  return `sha256:${hash.digest('hex')}`;
}

/**
 * Below this size a file is read and written with the synchronous calls: a package is mostly small files,
 * and for those a synchronous call costs a fraction of a promise's round trip through the thread pool
 * (start-up reads every package on SKILL_PATHS; issue 31). Larger files do not hold the event loop.
 */
const SYNC_IO_MAX_BYTES = 256 * 1024;

/**
 * Reads a package directory into memory within `limits`: every regular file (symlinks to files of the package
 * followed; to a file outside it, PackageLinkOutside; linked directories are not followed, they could loop), minus
 * skipped entries.
 */
export async function readPackageDir(dir: string, limits: PackageLimits = DEFAULT_PACKAGE_LIMITS): Promise<PackageFile[]> {
  const files: PackageFile[] = [];
  let total = 0;
  const realRoot = realpathSync(dir);
  const pending = [''];
  while (pending.length > 0) {
    const relative = pending.pop()!;
    const entries = readdirSync(join(dir, relative), { withFileTypes: true });
    for (const entry of entries) {
      if (isSkippedEntry(entry.name)) continue;
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      const absolute = join(dir, path);
      if (entry.isDirectory()) {
        pending.push(path);
        continue;
      }
      const linked = entry.isSymbolicLink() ? linkedFileInside(realRoot, absolute, path) : null;
      const info = entry.isSymbolicLink() ? linked?.info : lstatSync(absolute);
      if (!info?.isFile()) continue;
      if (files.length + 1 > limits.maxFiles) throw new PackageTooLarge('PACKAGE_MAX_FILES', files.length + 1, limits.maxFiles);
      if (info.size > limits.maxFileBytes) throw new PackageTooLarge('PACKAGE_MAX_FILE_BYTES', info.size, limits.maxFileBytes, path);
      total += info.size;
      if (total > limits.maxTotalBytes) throw new PackageTooLarge('PACKAGE_MAX_BYTES', total, limits.maxTotalBytes);
      const source = linked?.path ?? absolute;
      const bytes = info.size <= SYNC_IO_MAX_BYTES ? readFileSync(source) : await readFile(source);
      files.push({ path, mode: normaliseMode(info.mode), bytes });
    }
  }
  return files.sort((a, b) => compareCodeUnits(a.path, b.path));
}

/**
 * The whole-package digest versions had before the package store (path, length and bytes of each
 * file in order). Only to recognise such a version when its unchanged package is seen again.
 */
export function legacyContentHash(files: PackageFile[]): string {
  const hash = createHash('sha256');
  for (const file of [...files].sort((a, b) => compareCodeUnits(a.path, b.path))) {
    hash.update(`${file.path}\0${file.bytes.length}\0`);
    hash.update(file.bytes);
  }
  return `sha256:${hash.digest('hex')}`;
}

/** Writes `files` under `dir` (created as needed), each with its mode. */
export async function writePackageFiles(dir: string, files: PackageFile[]): Promise<void> {
  for (const file of files) {
    const target = join(dir, file.path);
    mkdirSync(dirname(target), { recursive: true });
    if (file.bytes.length <= SYNC_IO_MAX_BYTES) writeFileSync(target, file.bytes, { mode: file.mode });
    else await writeFile(target, file.bytes, { mode: file.mode });
  }
}

/**
 * Removes `dir` after writePackageFiles(dir, files) wrote into it, by what was written: one call per file and
 * directory, where a recursive removal also lists every directory and stats every entry (start-up removes a
 * copy per new package; issue 31). Anything else found there (a directory not empty) falls back to that.
 */
export async function removeWrittenFiles(dir: string, files: PackageFile[]): Promise<void> {
  try {
    const directories = new Set<string>();
    for (const file of files) {
      unlinkSync(join(dir, file.path));
      for (let parent = dirname(file.path); parent !== '.' && parent !== '/'; parent = dirname(parent)) directories.add(parent);
    }
    // A directory's path is longer than its parent's: the longest first empties each before its parent.
    for (const directory of [...directories].sort((a, b) => b.length - a.length)) rmdirSync(join(dir, directory));
    rmdirSync(dir);
  } catch {
    await rm(dir, { recursive: true, force: true });
  }
}
