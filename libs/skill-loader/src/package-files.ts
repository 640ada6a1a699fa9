import { readdirSync, readFileSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { isSkippedEntry, linkedFileInside, manifestHash, sha256Hex } from '#package-store/package-files.js';

/** Files that make a directory a skill package. */
const PACKAGE_MARKERS = ['definition.json', 'handler.ts', 'SKILL.md'] as const;

/** True when `dir` holds a package marker file (definition.json, handler.ts or SKILL.md) itself. */
export async function isSkillPackageDir(dir: string): Promise<boolean> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => null);
  return entries !== null && entries.some((entry) => (PACKAGE_MARKERS as readonly string[]).includes(entry.name) && !entry.isDirectory());
}

/**
 * Skill package directories under `roots` (absolute real paths, sorted, without duplicates). A package is a
 * directory holding definition.json, handler.ts or SKILL.md; the search does not descend into packages,
 * node_modules or dot-directories. A root that does not exist yields nothing: the caller reports it.
 */
export async function findSkillPackages(roots: string[]): Promise<string[]> {
  const found = new Set<string>();
  const visited = new Set<string>();
  for (const root of roots) {
    const realRoot = await realpath(root).catch(() => null);
    if (realRoot !== null) await searchDirectory(realRoot, found, visited);
  }
  return [...found].sort(compareCodeUnits);
}

async function searchDirectory(dir: string, found: Set<string>, visited: Set<string>): Promise<void> {
  if (visited.has(dir)) return;
  visited.add(dir);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => null);
  if (entries === null) return;
  if (entries.some((entry) => (PACKAGE_MARKERS as readonly string[]).includes(entry.name) && !entry.isDirectory())) {
    found.add(dir);
    return;
  }
  for (const entry of entries.sort((a, b) => compareCodeUnits(a.name, b.name))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const child = await childDirectory(dir, entry);
    if (child !== null) await searchDirectory(child, found, visited);
  }
}

async function childDirectory(dir: string, entry: Dirent): Promise<string | null> {
  const path = join(dir, entry.name);
  if (entry.isDirectory()) return path;
  if (!entry.isSymbolicLink()) return null;
  const target = await realpath(path).catch(() => null);
  if (target === null) return null;
  return (await stat(target).catch(() => null))?.isDirectory() ? target : null;
}

/** Relative paths (POSIX separators, sorted) of the files making up a package's content. */
export async function listPackageFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  await collectFiles(dir, dir, files);
  return files.sort(compareCodeUnits);
}

async function collectFiles(root: string, dir: string, files: string[], realRoot = realpathSync(root)): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    if (isSkippedEntry(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await collectFiles(root, path, files, realRoot);
    else if (entry.isFile() || isLinkedFile(realRoot, root, path, entry)) files.push(packagePath(root, path));
  }
}

/** Symlinks are followed to files of the package only (one outside: PackageLinkOutside); a linked directory could loop. */
function isLinkedFile(realRoot: string, root: string, path: string, entry: Dirent): boolean {
  return entry.isSymbolicLink() && linkedFileInside(realRoot, path, packagePath(root, path))?.info.isFile() === true;
}

function packagePath(root: string, path: string): string {
  return relative(root, path).split(sep).join('/');
}

/**
 * Content hash of a package: the package store's manifest hash (libs/package-store) over its files,
 * each with size, mode and sha256. node_modules, dist and dotfiles are left out, so builds and
 * editors do not change it; a package has the same hash on disk, in an archive and in the store.
 */
export async function hashSkillPackage(dir: string): Promise<string> {
  const files = await listPackageFiles(dir);
  // Read concurrently: a package is a handful of small files, and fs latency is most of the cost.
  const entries = await Promise.all(
    files.map(async (file) => {
      const [bytes, info] = await Promise.all([readFile(join(dir, file)), stat(join(dir, file))]);
      return { path: file, size: bytes.length, mode: info.mode, sha256: sha256Hex(bytes) };
    }),
  );
  return manifestHash(entries);
}

/** hashSkillPackage for the loader, which is synchronous work already (transpiling, evaluating). */
export function hashSkillPackageSync(dir: string): string {
  const files: string[] = [];
  collectFilesSync(dir, dir, files);
  return manifestHash(
    files.map((file) => {
      const bytes = readFileSync(join(dir, file));
      return { path: file, size: bytes.length, mode: statSync(join(dir, file)).mode, sha256: sha256Hex(bytes) };
    }),
  );
}

function collectFilesSync(root: string, dir: string, files: string[], realRoot = realpathSync(root)): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (isSkippedEntry(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) collectFilesSync(root, path, files, realRoot);
    else if (entry.isFile() || isLinkedFile(realRoot, root, path, entry)) files.push(packagePath(root, path));
  }
}

/** Hash of a package without files (what a missing or unreadable directory gets). */
export const EMPTY_PACKAGE_HASH = manifestHash([]);

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
