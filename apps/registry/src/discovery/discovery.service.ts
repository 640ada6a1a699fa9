import { basename, dirname } from 'node:path';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  PackageStore,
  PackageTooLarge,
  legacyContentHash,
  manifestHash,
  manifestOf,
  readPackageDir,
} from '../../../../libs/package-store/src/index.js';
import { findSkillPackages } from '../../../../libs/skill-loader/src/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import type { NewSkillVersion, SkillVersionRecord } from '../catalog/skill-records.js';
import { SkillsRepository } from '../catalog/skills.repository.js';
import { APP_CONFIG, type AppConfig, packageLimitsOf } from '../config/app-config.js';
import { LifecycleEventsPublisher } from '../lifecycle/lifecycle-events.publisher.js';
import { LifecycleService } from '../lifecycle/lifecycle.service.js';
import { DomainError, VersionImmutable } from '../problem/domain-errors.js';
import { PackageIntake } from './package-intake.js';
import { isInside, isPublishedPath, resolvePackagePath, resolveRoots, type SkillRoot } from './package-paths.js';

export type PackageOutcome = 'new' | 'updated' | 'unchanged' | 'refused';

export interface PackageReport {
  path: string;
  name: string;
  version: string;
  outcome: PackageOutcome;
  status: string | null;
  errors: number;
  warnings: number;
  message: string | null;
}

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
const LOAD_CONCURRENCY = 4;

/** Finds skill packages under SKILL_PATHS and brings the catalog in line with the disk. */
@Injectable()
export class DiscoveryService {
  private readonly logger = new Logger(DiscoveryService.name);
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: SkillsRepository,
    private readonly catalog: SkillCatalog,
    private readonly lifecycle: LifecycleService,
    private readonly events: LifecycleEventsPublisher,
    private readonly packages: PackageStore,
    private readonly intake: PackageIntake,
  ) {}

  /** Full rescan: register new and changed packages, archive versions whose package is gone. */
  discover(actor = DISCOVERY_ACTOR): Promise<DiscoveryReport> {
    return this.serialised(() => this.scan(actor));
  }

  /** Registers the one package at `requestedPath` (which must lie inside a SKILL_PATHS root). */
  register(requestedPath: string, actor: string): Promise<{ report: PackageReport; version: SkillVersionRecord | null }> {
    return this.serialised(async () => {
      const roots = await resolveRoots(this.config.SKILL_PATHS);
      const packagePath = await resolvePackagePath(requestedPath, roots);
      const report = await this.registerPackage(packagePath, actor, this.storedByPath());
      if (report.outcome === 'refused' && report.message?.startsWith('VERSION_IMMUTABLE')) {
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
    await Promise.all(
      Array.from({ length: Math.min(LOAD_CONCURRENCY, packageDirs.length) }, async () => {
        while (next < packageDirs.length) {
          const index = next++;
          reports[index] = await this.registerPackage(packageDirs[index] as string, actor, storedByPath);
        }
      }),
    );
    markDuplicates(reports);

    const seen = new Set(
      reports.filter((r) => r.outcome !== 'refused' || r.message?.startsWith('VERSION_IMMUTABLE')).map((r) => `${r.name}@${r.version}`),
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
    return report;
  }

  private async registerPackage(
    packagePath: string,
    actor: string,
    storedByPath: Map<string, SkillVersionRecord[]>,
  ): Promise<PackageReport> {
    try {
      // The bytes read here are the ones stored: the version's content hash is their manifest's.
      const files = await readPackageDir(packagePath, packageLimitsOf(this.config));
      const contentHash = manifestHash(manifestOf(files));
      // Fast path: nothing changed on disk, so nothing is loaded or written.
      const stored = storedByPath.get(packagePath) ?? [];
      const same = stored.find((v) => v.contentHash === contentHash && v.status !== 'ARCHIVED');
      if (same) return reportOf(packagePath, same, 'unchanged', null);
      const legacyHash = legacyContentHash(files);
      const legacy = stored.find((v) => v.contentHash === legacyHash && v.status !== 'ARCHIVED');
      if (legacy) return reportOf(packagePath, await this.adoptLegacy(legacy, files), 'unchanged', null);

      // Validated from the bytes just read, as a published archive is: what is checked is what is stored
      // and what executors run, and nothing outside the package's own files resolves.
      const intake = await this.intake.validate(files, [basename(dirname(packagePath)), basename(packagePath)]);
      await this.packages.save(files);
      const snapshot = { ...intake.snapshot, contentHash, packagePath };
      let existing = await this.repository.findVersion(snapshot.name, snapshot.version);
      if (existing && existing.contentHash === legacyHash) existing = await this.adoptLegacy(existing, files);
      const errors = intake.issues.filter((issue) => issue.severity === 'error').length;
      const warnings = intake.issues.length - errors;
      const base = { path: packagePath, name: snapshot.name, version: snapshot.version, errors, warnings };

      if (!existing) {
        const creation = {
          from: null,
          to: snapshot.status,
          actor,
          reason: snapshot.status === 'REGISTERED' ? 'discovered; validation passed' : 'discovered; validation failed',
          evidence: { content_hash: snapshot.contentHash, errors, warnings },
        };
        const created = await this.repository.createVersion(snapshot, creation);
        if (created) {
          this.catalog.applyVersion(created);
          await this.events.publish(created.name, created.version, creation);
        } else await this.catalog.reload(snapshot.name);
        if (!created) return { ...base, outcome: 'unchanged', status: null, message: 'registered concurrently by another process' };
        return { ...base, outcome: 'new', status: created.status, message: snapshot.statusReason };
      }

      if (existing.contentHash === snapshot.contentHash) {
        if (existing.status !== 'ARCHIVED') return reportOf(packagePath, existing, 'unchanged', null);
        const restored = await this.lifecycle.move({
          name: existing.name,
          version: existing.version,
          to: snapshot.status,
          via: 'reappearance',
          actor,
          reason: 'package is back on disk',
          evidence: { content_hash: snapshot.contentHash, errors, warnings },
          patch: { content: { packagePath, validation: snapshot.validation }, statusReason: snapshot.statusReason },
        });
        return { ...base, outcome: 'updated', status: restored.status, message: 'restored from archive' };
      }

      const wasPublished = existing.validation.every((issue) => issue.severity !== 'error');
      if (existing.status !== 'DRAFT' && !(existing.status === 'ARCHIVED' && !wasPublished)) {
        return {
          ...base,
          outcome: 'refused',
          status: existing.status,
          message: `VERSION_IMMUTABLE: ${existing.status} version ${existing.version} changed on disk; bump the version in definition.json`,
        };
      }
      const updated = await this.updateDraft(existing, snapshot, actor, errors, warnings);
      return { ...base, outcome: 'updated', status: updated.status, message: snapshot.statusReason };
    } catch (error) {
      const message =
        error instanceof DomainError
          ? `${error.code}: ${error.message}`
          : error instanceof PackageTooLarge
            ? `PACKAGE_TOO_LARGE: ${error.message}`
            : (error as Error).message;
      this.logger.error(`could not register ${packagePath}: ${message}`);
      return { path: packagePath, name: '', version: '', outcome: 'refused', status: null, errors: 1, warnings: 0, message };
    }
  }

  /**
   * A version registered before the package store (its hash is the old whole-package digest) whose
   * package is unchanged on disk: its files are stored and it takes the manifest hash, so executors
   * can run it from the store. Its status and history stay as they are.
   */
  private async adoptLegacy(version: SkillVersionRecord, files: Awaited<ReturnType<typeof readPackageDir>>): Promise<SkillVersionRecord> {
    const { contentHash } = await this.packages.save(files);
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = (await this.repository.findVersion(version.name, version.version)) ?? version;
      if (current.contentHash === contentHash) return current;
      const updated = await this.repository.updateVersion(current, current.status, { content: { contentHash } }, null);
      if (updated) {
        this.catalog.applyVersion(updated);
        this.logger.log(`stored the package of ${updated.name} ${updated.version} (registered before the package store)`);
        return updated;
      }
    }
    return version;
  }

  /** A DRAFT (or archived never-published) version whose package changed: new content, maybe REGISTERED. */
  private async updateDraft(
    existing: SkillVersionRecord,
    snapshot: NewSkillVersion,
    actor: string,
    errors: number,
    warnings: number,
  ): Promise<SkillVersionRecord> {
    const { status, statusReason, name: _name, version: _version, versionKey: _key, ...content } = snapshot;
    if (status === 'REGISTERED' || existing.status === 'ARCHIVED') {
      return this.lifecycle.move({
        name: existing.name,
        version: existing.version,
        to: status,
        via: existing.status === 'ARCHIVED' ? 'reappearance' : 'validation',
        actor,
        reason: status === 'REGISTERED' ? 'package fixed; validation passed' : 'package is back on disk; validation failed',
        evidence: { content_hash: snapshot.contentHash, errors, warnings },
        patch: { content, statusReason },
      });
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = (await this.repository.findVersion(existing.name, existing.version)) ?? existing;
      if (current.status !== 'DRAFT') break;
      const updated = await this.repository.updateVersion(current, 'DRAFT', { content, statusReason }, null);
      if (updated) {
        this.catalog.applyVersion(updated);
        return updated;
      }
    }
    throw new VersionImmutable(existing.name, existing.version, existing.status, existing.contentHash);
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
          await this.lifecycle.move({
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

function reportOf(path: string, version: SkillVersionRecord, outcome: PackageOutcome, message: string | null): PackageReport {
  const errors = version.validation.filter((issue) => issue.severity === 'error').length;
  return {
    path,
    name: version.name,
    version: version.version,
    outcome,
    status: version.status,
    errors,
    warnings: version.validation.length - errors,
    message,
  };
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
    report.message = `DUPLICATE: ${key} is also at ${earlier.path}; each version must live in one package`;
  }
}

function count(reports: PackageReport[], outcome: PackageOutcome): number {
  return reports.filter((report) => report.outcome === outcome).length;
}
