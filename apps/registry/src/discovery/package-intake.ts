import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PackageFile, writePackageFiles } from '../../../../libs/package-store/src/index.js';
import type { LoadedSkillPackage, SkillPackageLoader } from '../../../../libs/skill-loader/src/index.js';

/**
 * Validates a package from its bytes, however it arrived (published archive or a directory under
 * SKILL_PATHS): the files are written to a private temporary directory `<tmp>/<domain>/<name>` and
 * that copy is loaded, so the package is checked exactly as executors will run it from the store —
 * nothing outside its own files resolves, and what is validated is what is stored.
 * `location` is the `<domain>/<name>` the loader compares the definition with.
 */
export async function loadPackageFiles(
  loader: SkillPackageLoader,
  files: PackageFile[],
  location: readonly [string, string],
): Promise<LoadedSkillPackage> {
  const workDir = await mkdtemp(join(tmpdir(), 'skill-intake-'));
  try {
    const packageDir = join(workDir, ...location);
    await writePackageFiles(packageDir, files);
    const loaded = await loader.load(packageDir);
    // The temporary location means nothing to the author: a message names files relative to the package.
    const scrub = (text: string) => text.replaceAll(`${loaded.packagePath}/`, '').replaceAll(loaded.packagePath, '.');
    return { ...loaded, issues: loaded.issues.map((issue) => ({ ...issue, message: scrub(issue.message), hint: scrub(issue.hint) })) };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
