import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { isSkillPackageDir } from '#skill-loader/index.js';
import { NotAPackage, PackageNotFound, PathOutsideSkillPaths, RequestInvalid } from '../problem/domain-errors.js';

/** A configured SKILL_PATHS root and, when it exists, its real path. */
export interface SkillRoot {
  configured: string;
  resolved: string | null;
}

export async function resolveRoots(configured: string[]): Promise<SkillRoot[]> {
  return Promise.all(
    configured.map(async (root) => {
      try {
        const resolved = await realpath(path.resolve(root));
        return { configured: root, resolved: (await stat(resolved)).isDirectory() ? resolved : null };
      } catch {
        return { configured: root, resolved: null };
      }
    }),
  );
}

export function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * The real path of a package a client names, refused unless it lies inside a root — both as
 * written (no `../` escapes) and after following symlinks.
 */
export async function resolvePackagePath(requested: string, roots: SkillRoot[]): Promise<string> {
  if (requested.includes('\0')) throw new RequestInvalid('path contains a NUL byte', [{ field: 'path', message: 'contains a NUL byte' }]);
  const present = roots.filter((root): root is { configured: string; resolved: string } => root.resolved !== null);
  const candidates = path.isAbsolute(requested)
    ? [path.normalize(requested)]
    : [path.resolve(requested), ...present.map((root) => path.resolve(root.resolved, requested))];
  const lexical = candidates.find((candidate) =>
    present.some((root) => isInside(candidate, root.resolved) || isInside(candidate, path.resolve(root.configured))),
  );
  if (!lexical)
    throw new PathOutsideSkillPaths(
      requested,
      roots.map((root) => root.configured),
    );
  let real: string;
  try {
    real = await realpath(lexical);
  } catch {
    throw new PackageNotFound(requested);
  }
  if (!present.some((root) => isInside(real, root.resolved)))
    throw new PathOutsideSkillPaths(
      requested,
      roots.map((root) => root.configured),
    );
  if (!(await stat(real)).isDirectory()) throw new PackageNotFound(requested);
  // A domain folder or a root holds packages but is none: registering it would store a bogus skill.
  if (!(await isSkillPackageDir(real))) throw new NotAPackage(requested);
  return real;
}

/** The package path recorded for a version published over the API (it has no directory on the server). */
export function publishedPath(name: string, version: string): string {
  return `published:${name}@${version}`;
}

export function isPublishedPath(packagePath: string): boolean {
  return packagePath.startsWith('published:');
}
