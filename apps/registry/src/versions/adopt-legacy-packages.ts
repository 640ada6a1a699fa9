import { Inject, Injectable, Logger } from '@nestjs/common';
import { PackageStore, legacyContentHash, manifestHash, manifestOf, readPackageDir } from '#package-store/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import type { SkillVersionRecord } from '../catalog/skill-records.js';
import { APP_CONFIG, type AppConfig, packageLimitsOf } from '../config/app-config.js';
import { isPublishedPath } from './package-paths.js';
import { VersionRecorder } from './version-recorder.js';

/**
 * A one-time migration, run at start-up before the first scan: versions registered before the package
 * store carry the old whole-package digest as their content hash, and no stored package. Each one whose
 * package is still unchanged at its path gets its files stored and takes the manifest hash, so that
 * executors can run it from the store; its status and history stay as they are. One whose package is
 * gone or changed is left alone (a rescan reports it as discovery does any other). Costs one query when
 * there is nothing to adopt.
 */
@Injectable()
export class AdoptLegacyPackages {
  private readonly logger = new Logger(AdoptLegacyPackages.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly catalog: SkillCatalog,
    private readonly packages: PackageStore,
    private readonly versions: VersionRecorder,
  ) {}

  /** The number of versions adopted. */
  async run(): Promise<number> {
    const candidates = this.catalog.all().flatMap((skill) => skill.versions.filter((version) => !isPublishedPath(version.packagePath)));
    const stored = await this.packages.stored([...new Set(candidates.map((version) => version.contentHash))]);
    let adopted = 0;
    for (const version of candidates) {
      if (stored.has(version.contentHash)) continue;
      try {
        if (await this.adopt(version)) adopted++;
      } catch (error) {
        this.logger.warn(`could not store the package of ${version.name} ${version.version}: ${(error as Error).message}`);
      }
    }
    return adopted;
  }

  private async adopt(version: SkillVersionRecord): Promise<boolean> {
    const files = await readPackageDir(version.packagePath, packageLimitsOf(this.config)).catch(() => null);
    if (!files || legacyContentHash(files) !== version.contentHash) return false;
    const contentHash = manifestHash(manifestOf(files));
    const adopted = await this.versions.update(
      version,
      (current) =>
        current.contentHash === contentHash
          ? 'done'
          : current.contentHash !== version.contentHash
            ? 'stop'
            : { status: current.status, patch: { content: { contentHash } } },
      files,
    );
    if (adopted) this.logger.log(`stored the package of ${version.name} ${version.version} (registered before the package store)`);
    return adopted !== null;
  }
}
