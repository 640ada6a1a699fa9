import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, posix, relative, sep } from 'node:path';

/** A path written in SKILL.md or tools.yaml, resolved inside the package. */
export type PackagePath =
  { ok: true; path: string; kind: 'file' | 'directory' } | { ok: false; problem: 'absolute' | 'escapes' | 'missing'; path: string };

/**
 * Resolve `written` (relative to the package root, `/` or `\` separators) to a normalised package-relative path.
 * Absolute paths, `..` leading out of the package and symbolic links pointing outside it are refused: a package
 * must carry everything it runs.
 */
export async function resolvePackagePath(packageDir: string, written: string): Promise<PackagePath> {
  const slashed = written.trim().replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed) || isAbsolute(written))
    return { ok: false, problem: 'absolute', path: written };
  const normalised = posix
    .normalize(slashed)
    .replace(/^(\.\/)+/, '')
    .replace(/\/$/, '');
  if (normalised === '..' || normalised.startsWith('../')) return { ok: false, problem: 'escapes', path: written };
  const [realRoot, realTarget] = await Promise.all([
    realpath(packageDir).catch(() => null),
    realpath(join(packageDir, normalised)).catch(() => null),
  ]);
  if (realRoot === null || realTarget === null) return { ok: false, problem: 'missing', path: normalised };
  const inside = relative(realRoot, realTarget);
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return { ok: false, problem: 'escapes', path: written };
  const info = await stat(realTarget).catch(() => null);
  if (info === null) return { ok: false, problem: 'missing', path: normalised };
  return { ok: true, path: normalised, kind: info.isDirectory() ? 'directory' : 'file' };
}

/** The message for a path that did not resolve, naming the field that holds it. */
export function describePathProblem(field: string, result: Extract<PackagePath, { ok: false }>): { message: string; hint: string } {
  switch (result.problem) {
    case 'absolute':
      return {
        message: `${field} '${result.path}' is an absolute path`,
        hint: 'Write the path relative to the package root (the directory of SKILL.md), e.g. "scripts/run.py".',
      };
    case 'escapes':
      return {
        message: `${field} '${result.path}' points outside the package`,
        hint: 'Keep every file the package uses inside its directory and refer to it by a relative path without "..".',
      };
    case 'missing':
      return {
        message: `${field} '${result.path}' does not exist in the package`,
        hint: `Add '${result.path}' to the package or correct the path (it is relative to the package root).`,
      };
  }
}
