import { Inject, Injectable, Logger } from '@nestjs/common';
import { findSkillPackages } from '#skill-loader/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import type { SkillVersionRecord } from '../catalog/skill-records.js';
import { SkillsRepository } from '../catalog/skills.repository.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { VersionImmutable } from '../problem/domain-errors.js';
import { type PackageOutcome, type PackageReport, RegisterSkill } from './register-skill.js';
import { VersionRecorder } from './version-recorder.js';
import { isInside, isPublishedPath, resolvePackagePath, resolveRoots, type SkillRoot } from './package-paths.js';
import { missingFromCatalog, packageLabel, refusedPackages } from './report-against-catalog.js';

export interface DiscoveryReport {
  new: number;
  updated: number;
  unchanged: number;
  refused: number;
  archived: number;
  missing_roots: string[];
  packages: PackageReport[];
  archived_versions: { name: string; version: string }[];
}

const DISCOVERY_ACTOR = 'system:discovery';
/**
 * Packages registered at once by a scan. Each waits mostly on others (its sandboxed inspection, the compiler, the
 * database), so more in flight keep those busy and let new versions share their batches (VersionRecorder): with
 * 1,000 new packages on 2 cores, 16 started the registry in 14.2 s against 15.9 s with 4.
 */
const LOAD_CONCURRENCY = 16;
const PROGRESS_EVERY_MS = 3000;

/**
 * Finds skill packages under SKILL_PATHS and brings the catalog in line with the disk: each package
 * through RegisterSkill, then the versions whose package is gone are archived. One scan or
 * registration at a time (`serialised`, shared with publishing). The last full scan's report is kept:
 * readiness and the health report compare the catalog with it.
 */
@Injectable()
export class DiscoveryService {
  private readonly logger = new Logger(DiscoveryService.name);
  private running: Promise<unknown> = Promise.resolve();
  private last: DiscoveryReport | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: SkillsRepository,
    private readonly catalog: SkillCatalog,
    private readonly versions: VersionRecorder,
    private readonly registerSkill: RegisterSkill,
  ) {}

  /** The report of the last full scan; null until the start-up scan has finished. */
  get lastReport(): DiscoveryReport | null {
    return this.last;
  }

  /** Full rescan: register new and changed packages, archive versions whose package is gone. */
  discover(actor = DISCOVERY_ACTOR): Promise<DiscoveryReport> {
    return this.serialised(() => this.scan(actor));
  }

  /** Registers the one package at `requestedPath` (which must lie inside a SKILL_PATHS root). */
  register(requestedPath: string, actor: string): Promise<{ report: PackageReport; version: SkillVersionRecord | null }> {
    return this.serialised(async () => {
      const roots = await resolveRoots(this.config.SKILL_PATHS);
      const packagePath = await resolvePackagePath(requestedPath, roots);
      const report = await this.registerSkill.register(packagePath, actor, this.storedByPath());
      this.logRefusals([report]);
      if (report.outcome === 'refused' && report.refusal === 'VERSION_IMMUTABLE') {
        const existing = await this.repository.findVersion(report.name, report.version);
        throw new VersionImmutable(report.name, report.version, existing?.status ?? 'stored', existing?.contentHash ?? null);
      }
      return { report, version: await this.repository.findVersion(report.name, report.version) };
    });
  }

  private async scan(actor: string): Promise<DiscoveryReport> {
    const started = Date.now();
    const roots = await resolveRoots(this.config.SKILL_PATHS);
    const present = roots.flatMap((root) => (root.resolved ? [root.resolved] : []));
    const missingRoots = roots.filter((root) => !root.resolved).map((root) => root.configured);
    for (const root of missingRoots) this.logger.warn(`SKILL_PATHS root ${root} does not exist; its skills are left as they are`);

    const packageDirs = await findSkillPackages(present);
    const storedByPath = this.storedByPath();
    const reports: PackageReport[] = new Array(packageDirs.length);
    let next = 0;
    let done = 0;
    let lastProgress = started;
    await Promise.all(
      Array.from({ length: Math.min(LOAD_CONCURRENCY, packageDirs.length) }, async () => {
        while (next < packageDirs.length) {
          const index = next++;
          reports[index] = await this.registerSkill.register(packageDirs[index] as string, actor, storedByPath);
          done++;
          // A long scan says how far it is, every few seconds (a thousand new packages take several).
          if (Date.now() - lastProgress >= PROGRESS_EVERY_MS && done < packageDirs.length) {
            lastProgress = Date.now();
            this.logger.log(`discovery: ${done} of ${packageDirs.length} packages in ${lastProgress - started} ms`);
          }
        }
      }),
    );
    await this.retryFailed(reports, actor);
    markDuplicates(reports);
    await this.reconcileCatalog(reports);
    this.logRefusals(reports);

    const seen = new Set(
      reports.filter((r) => r.outcome !== 'refused' || r.refusal === 'VERSION_IMMUTABLE').map((r) => `${r.name}@${r.version}`),
    );
    const archived = await this.archiveMissing(seen, roots, actor);
    const report: DiscoveryReport = {
      new: count(reports, 'new'),
      updated: count(reports, 'updated'),
      unchanged: count(reports, 'unchanged'),
      refused: count(reports, 'refused'),
      archived: archived.length,
      missing_roots: missingRoots,
      packages: reports,
      archived_versions: archived,
    };
    this.logger.log(
      `discovery: ${packageDirs.length} packages in ${Date.now() - started} ms — ${report.new} new, ${report.updated} updated, ${report.unchanged} unchanged, ${report.refused} refused, ${report.archived} archived`,
    );
    this.last = report;
    return report;
  }

  /**
   * A package that failed for a reason other than its content (a dropped connection, a deadlock under
   * the concurrent start-up writes) may well register on a second try, one at a time; one that fails
   * again keeps its second report.
   */
  private async retryFailed(reports: PackageReport[], actor: string): Promise<void> {
    for (const [index, entry] of reports.entries()) {
      if (entry.outcome !== 'refused' || entry.refusal !== 'FAILED') continue;
      this.logger.debug(`retrying ${entry.path} once: ${entry.message}`);
      reports[index] = await this.registerSkill.register(entry.path, actor, this.storedByPath());
    }
  }

  /**
   * Every version the scan stored must be in the catalog, which later reads (promotion among them)
   * answer from alone: one it lacks is read back from the database; one still lacking after that is
   * logged (and readiness reports it).
   */
  private async reconcileCatalog(reports: PackageReport[]): Promise<void> {
    const missing = missingFromCatalog(reports, this.catalog);
    if (missing.length === 0) return;
    for (const name of new Set(missing.map((entry) => entry.name))) await this.catalog.reload(name);
    const lost = new Set(missingFromCatalog(reports, this.catalog));
    for (const entry of missing) {
      if (lost.has(entry)) this.logger.error(`${entry.name} ${entry.version} is stored but still not in the catalog after a reload`);
      else this.logger.warn(`${entry.name} ${entry.version} was stored but missing from the catalog; reloaded it`);
    }
  }

  /** Each refused package with its reason: a failure at error, a refusal the package's content caused at warn. */
  private logRefusals(reports: PackageReport[]): void {
    for (const refused of refusedPackages(reports)) {
      const what = refused.name ? `${packageLabel(refused)} at ${refused.path}` : refused.path;
      const line = `refused ${what} (${refused.refusal}): ${refused.reason}`;
      if (refused.refusal === 'FAILED') this.logger.error(line);
      else this.logger.warn(line);
    }
  }

  private async archiveMissing(seen: Set<string>, roots: SkillRoot[], actor: string): Promise<{ name: string; version: string }[]> {
    const missingRoots = roots.filter((root) => !root.resolved).map((root) => root.configured);
    const archived: { name: string; version: string }[] = [];
    for (const skill of this.catalog.all()) {
      for (const version of skill.versions) {
        if (version.status === 'ARCHIVED' || seen.has(`${version.name}@${version.version}`)) continue;
        // Versions under a root that is missing right now are left alone: a misconfiguration is not a removal.
        if (missingRoots.some((root) => isInside(version.packagePath, root))) continue;
        // Published over the API: not on any disk, so never "removed from disk".
        if (isPublishedPath(version.packagePath)) continue;
        try {
          await this.versions.move({
            name: version.name,
            version: version.version,
            to: 'ARCHIVED',
            via: 'removal',
            actor,
            reason: `package no longer on disk at ${version.packagePath}`,
            patch: { statusReason: 'package removed from disk' },
          });
          archived.push({ name: version.name, version: version.version });
        } catch (error) {
          this.logger.warn(`could not archive ${version.name}@${version.version}: ${(error as Error).message}`);
        }
      }
    }
    return archived;
  }

  private storedByPath(): Map<string, SkillVersionRecord[]> {
    const byPath = new Map<string, SkillVersionRecord[]>();
    for (const skill of this.catalog.all()) {
      for (const version of skill.versions) {
        const list = byPath.get(version.packagePath) ?? [];
        list.push(version);
        byPath.set(version.packagePath, list);
      }
    }
    return byPath;
  }

  /** Runs `work` after every registration in progress (disk or published), one at a time. */
  serialised<T>(work: () => Promise<T>): Promise<T> {
    const run = this.running.then(work, work);
    this.running = run.catch(() => undefined);
    return run;
  }
}

/** Two packages on disk claiming one name@version: the later one is refused. */
function markDuplicates(reports: PackageReport[]): void {
  const first = new Map<string, PackageReport>();
  for (const report of reports) {
    if (!report.name) continue;
    const key = `${report.name}@${report.version}`;
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, report);
      continue;
    }
    report.outcome = 'refused';
    report.refusal = 'DUPLICATE';
    report.message = `DUPLICATE: ${key} is also at ${earlier.path}; each version must live in one package`;
  }
}

function count(reports: PackageReport[], outcome: PackageOutcome): number {
  return reports.filter((report) => report.outcome === outcome).length;
}
