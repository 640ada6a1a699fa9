import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import { type PackageFile, writePackageFiles } from '../../../../libs/package-store/src/index.js';
import { type LoadedSkillPackage, SkillPackageLoader, type ValidationIssue } from '../../../../libs/skill-loader/src/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { findCycle } from '../dependencies/dependency-rules.js';
import {
  type VersionCompatibility,
  compareVersions,
  compatibilityIssues,
  previousVersion,
} from '../compatibility/version-compatibility.js';
import { InvalidSchemaError } from '../../../../libs/schema-compat/src/index.js';

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

/** A package as the intake validated it, and how it compares with the version before it. */
export interface IntakeResult {
  loaded: LoadedSkillPackage;
  /** Against the highest non-DRAFT version below this one; null when there is none. */
  compatibility: VersionCompatibility | null;
}

/**
 * The one intake of new package content, for discovery and publishing alike: the loader's checks of
 * the package on its own (loadPackageFiles), then the registry's rules that need the catalog
 * (dependency cycles; a breaking schema change without a major bump). Their findings join the same
 * validation report, so a disk package with one is a DRAFT and a published one is refused with it.
 */
@Injectable()
export class PackageIntake {
  // No on-disk transpile cache: unchanged packages are never loaded again (content-hash fast path).
  private readonly loader = new SkillPackageLoader({ cacheDir: false });

  constructor(private readonly catalog: SkillCatalog) {}

  async validate(files: PackageFile[], location: readonly [string, string]): Promise<IntakeResult> {
    const loaded = await loadPackageFiles(this.loader, files, location);
    const compatibility = this.compatibility(loaded);
    const findings = [...this.dependencyRules(loaded), ...compatibility.issues];
    if (findings.length === 0) return { loaded, compatibility: compatibility.report };
    return {
      loaded: { ...loaded, issues: [...loaded.issues, ...findings], valid: loaded.valid && !findings.some((f) => f.severity === 'error') },
      compatibility: compatibility.report,
    };
  }

  private compatibility(loaded: LoadedSkillPackage): { report: VersionCompatibility | null; issues: ValidationIssue[] } {
    const definition = loaded.definition;
    if (!definition || !loaded.valid) return { report: null, issues: [] };
    const previous = previousVersion(this.catalog.get(definition.name), definition.version);
    if (!previous) return { report: null, issues: [] };
    const next = {
      version: definition.version,
      inputSchema: loaded.inputJsonSchema,
      outputSchema: loaded.outputJsonSchema,
      compatibility: definition.compatibility,
    };
    try {
      const report = compareVersions(previous, next);
      return { report, issues: compatibilityIssues(report, 'schema.ts') };
    } catch (error) {
      if (!(error instanceof InvalidSchemaError)) throw error;
      const issue: ValidationIssue = {
        severity: 'error',
        category: 'compatibility',
        file: 'schema.ts',
        path: '',
        message: `cannot compare with ${previous.version}: ${error.message}`,
        hint: 'Fix the schema so that it is a valid JSON Schema 2020-12.',
      };
      return { report: null, issues: [issue] };
    }
  }

  private dependencyRules(loaded: LoadedSkillPackage): ValidationIssue[] {
    const definition = loaded.definition;
    if (!definition || definition.depends_on.length === 0) return [];
    const cycle = findCycle(definition.name, definition.depends_on, (name) => this.catalog.get(name));
    if (!cycle) return [];
    const index = definition.depends_on.findIndex((dependency) => dependency.name === cycle[1]);
    return [
      {
        severity: 'error',
        category: 'dependencies',
        file: 'definition.json',
        path: `/depends_on/${index}`,
        message: `dependency cycle: ${cycle.join(' → ')}`,
        hint: `Remove one of these dependencies; skills must form a graph without cycles.`,
      },
    ];
  }
}
