import type { SkillVersionRecord } from '../catalog/skill-records.js';
import type { PackageRefusal, PackageReport } from './register-skill.js';

/** What comparing a discovery report with the catalog needs of the catalog. */
export interface CatalogLookup {
  version(name: string, version: string): SkillVersionRecord | undefined;
}

/** A refused package as the health report and the log name it: where it is, what it claims, and why. */
export interface RefusedPackage {
  path: string;
  /** Null when the package could not be read far enough to name itself. */
  name: string | null;
  version: string | null;
  refusal: PackageRefusal;
  reason: string;
}

/** The report's entries whose version is stored (new, updated or unchanged), which the catalog must therefore hold. */
export function storedEntries(packages: PackageReport[]): PackageReport[] {
  return packages.filter((entry) => entry.outcome !== 'refused' && entry.name !== '');
}

/** Stored entries whose version the catalog does not hold: what a reload must bring back. */
export function missingFromCatalog(packages: PackageReport[], catalog: CatalogLookup): PackageReport[] {
  return storedEntries(packages).filter((entry) => !catalog.version(entry.name, entry.version));
}

export function refusedPackages(packages: PackageReport[]): RefusedPackage[] {
  return packages.flatMap((entry) =>
    entry.outcome === 'refused'
      ? [
          {
            path: entry.path,
            name: entry.name || null,
            version: entry.version || null,
            refusal: entry.refusal ?? 'FAILED',
            reason: entry.message ?? '',
          },
        ]
      : [],
  );
}

/** A package's name and version when it could say them, else its path. */
export function packageLabel(entry: { path: string; name: string | null; version: string | null }): string {
  return entry.name ? `${entry.name} ${entry.version ?? ''}`.trim() : entry.path;
}
