import { countIssues } from '#skill-loader/index.js';
import { basename, dirname } from 'node:path';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { PackageLinkOutside, PackageTooLarge, manifestHash, manifestOf, readPackageDir, type PackageFile } from '#package-store/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import type { NewSkillVersion, SkillVersionRecord } from '../catalog/skill-records.js';
import { SkillsRepository } from '../catalog/skills.repository.js';
import { APP_CONFIG, type AppConfig, packageLimitsOf } from '../config/app-config.js';
import { DomainError, VersionImmutable } from '../problem/domain-errors.js';
import { PackageIntake } from './package-intake.js';
import { failsOnlyOnRequiredTools } from './required-tools-check.js';
import { VersionRecorder } from './version-recorder.js';

export type PackageOutcome = 'new' | 'updated' | 'unchanged' | 'refused';

/** Why a package was refused: its version changed on disk, a second package claims it, or it could not be registered. */
export type PackageRefusal = 'VERSION_IMMUTABLE' | 'DUPLICATE' | 'FAILED';

export interface PackageReport {
  path: string;
  name: string;
  version: string;
  outcome: PackageOutcome;
  status: string | null;
  errors: number;
  warnings: number;
  message: string | null;
  /** Set when `outcome` is `refused`. */
  refusal?: PackageRefusal;
}

/**
 * Registers one package directory as its version: reads its bytes once, validates them through the
 * one intake, and creates, updates (a DRAFT), restores (an archived one) or refuses (an immutable
 * version whose content changed) the version through the VersionRecorder, which stores the bytes.
 * Typed outcome per package, never a throw.
 */
@Injectable()
export class RegisterSkill {
  private readonly logger = new Logger(RegisterSkill.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: SkillsRepository,
    private readonly catalog: SkillCatalog,
    private readonly versions: VersionRecorder,
    private readonly intake: PackageIntake,
  ) {}

  /** `storedByPath`: the catalog's versions by package path, read once per scan. */
  async register(packagePath: string, actor: string, storedByPath: Map<string, SkillVersionRecord[]>): Promise<PackageReport> {
    try {
      // The bytes read here are the ones stored: the version's content hash is their manifest's.
      const files = await readPackageDir(packagePath, packageLimitsOf(this.config));
      const contentHash = manifestHash(manifestOf(files));
      // Fast path: nothing changed on disk, so nothing is loaded or written.
      const stored = storedByPath.get(packagePath) ?? [];
      const same = stored.find((v) => v.contentHash === contentHash && v.status !== 'ARCHIVED');
      // Except a DRAFT held back only by its required tools: the adapters may have changed since, so it is checked again.
      if (same && !recheckTools(same)) return reportOf(packagePath, same, 'unchanged', null);

      // Validated from the bytes just read, as a published archive is: what is checked is what is stored
      // and what executors run, and nothing outside the package's own files resolves.
      const intake = await this.intake.validate(files, contentHash, [basename(dirname(packagePath)), basename(packagePath)], 'disk');
      const snapshot = { ...intake.snapshot, contentHash, packagePath };
      const { errors, warnings } = countIssues(intake.issues);
      const base = { path: packagePath, name: snapshot.name, version: snapshot.version, errors, warnings };

      // The catalog holds every stored version (loaded at start, following every change): one it lacks is new, and
      // is inserted without reading first (a thousand new packages, a thousand statements fewer). One stored a
      // moment ago by another process, or that this catalog lost, makes the insert find it: then it is read.
      let existing = this.catalog.version(snapshot.name, snapshot.version)
        ? await this.repository.findVersion(snapshot.name, snapshot.version)
        : null;
      if (!existing) {
        const creation = {
          from: null,
          to: snapshot.status,
          actor,
          reason: snapshot.status === 'REGISTERED' ? 'discovered; validation passed' : 'discovered; validation failed',
          evidence: { content_hash: snapshot.contentHash, errors, warnings },
        };
        const created = await this.versions.recordVersion(files, snapshot, creation);
        if (created) return { ...base, outcome: 'new', status: created.status, message: snapshot.statusReason };
        existing = await this.repository.findVersion(snapshot.name, snapshot.version);
        if (!existing) return { ...base, outcome: 'unchanged', status: null, message: 'registered concurrently by another process' };
      }

      if (existing.contentHash === snapshot.contentHash) {
        if (recheckTools(existing) && !sameIssues(existing.validation, snapshot.validation)) {
          const updated = await this.updateDraft(existing, snapshot, files, actor, errors, warnings);
          return { ...base, outcome: 'updated', status: updated.status, message: snapshot.statusReason };
        }
        if (existing.status !== 'ARCHIVED') {
          // Stored, yet not in the catalog's copy (the fast path above found nothing): the row read just now
          // goes in, so that a rescan repairs a catalog that lost the version (issue 30).
          this.catalog.applyVersion(existing);
          return reportOf(packagePath, existing, 'unchanged', null);
        }
        const restored = await this.versions.move({
          name: existing.name,
          version: existing.version,
          to: snapshot.status,
          via: 'reappearance',
          actor,
          reason: 'package is back on disk',
          evidence: { content_hash: snapshot.contentHash, errors, warnings },
          patch: { content: { packagePath, validation: snapshot.validation }, statusReason: snapshot.statusReason },
          files,
        });
        return { ...base, outcome: 'updated', status: restored.status, message: 'restored from archive' };
      }

      const wasPublished = existing.validation.every((issue) => issue.severity !== 'error');
      if (existing.status !== 'DRAFT' && !(existing.status === 'ARCHIVED' && !wasPublished)) {
        return {
          ...base,
          outcome: 'refused',
          refusal: 'VERSION_IMMUTABLE',
          status: existing.status,
          message: `VERSION_IMMUTABLE: ${existing.status} version ${existing.version} changed on disk; bump the version in definition.json`,
        };
      }
      const updated = await this.updateDraft(existing, snapshot, files, actor, errors, warnings);
      return { ...base, outcome: 'updated', status: updated.status, message: snapshot.statusReason };
    } catch (error) {
      const message =
        error instanceof DomainError
          ? `${error.code}: ${error.message}`
          : error instanceof PackageTooLarge
            ? `PACKAGE_TOO_LARGE: ${error.message}`
            : error instanceof PackageLinkOutside
              ? `PACKAGE_LINK_OUTSIDE: ${error.message}`
              : (error as Error).message;
      // The caller reports the refusal with its reason (discovery's log and report, the admin API's answer);
      // the stack is for debugging an unexpected failure.
      this.logger.debug(`could not register ${packagePath}: ${(error as Error).stack ?? message}`);
      return {
        path: packagePath,
        name: '',
        version: '',
        outcome: 'refused',
        refusal: 'FAILED',
        status: null,
        errors: 1,
        warnings: 0,
        message,
      };
    }
  }

  /** A DRAFT (or archived never-published) version whose package changed: new content, maybe REGISTERED. */
  private async updateDraft(
    existing: SkillVersionRecord,
    snapshot: NewSkillVersion,
    files: PackageFile[],
    actor: string,
    errors: number,
    warnings: number,
  ): Promise<SkillVersionRecord> {
    const { status, statusReason, name: _name, version: _version, versionKey: _key, ...content } = snapshot;
    if (status === 'REGISTERED' || existing.status === 'ARCHIVED') {
      return this.versions.move({
        name: existing.name,
        version: existing.version,
        to: status,
        via: existing.status === 'ARCHIVED' ? 'reappearance' : 'validation',
        actor,
        reason: status === 'REGISTERED' ? 'package fixed; validation passed' : 'package is back on disk; validation failed',
        evidence: { content_hash: snapshot.contentHash, errors, warnings },
        patch: { content, statusReason },
        files,
      });
    }
    const updated = await this.versions.update(
      existing,
      (current) => (current.status === 'DRAFT' ? { status: 'DRAFT', patch: { content, statusReason } } : 'stop'),
      files,
    );
    if (!updated) throw new VersionImmutable(existing.name, existing.version, existing.status, existing.contentHash);
    return updated;
  }
}

/** A DRAFT whose only errors are required-tools findings (see failsOnlyOnRequiredTools). */
function recheckTools(version: SkillVersionRecord): boolean {
  return version.status === 'DRAFT' && failsOnlyOnRequiredTools(version.validation);
}

function sameIssues(a: readonly unknown[], b: readonly unknown[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
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
