import { countIssues } from '#skill-loader/index.js';
import type { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { splitSkillMarkdown } from '#agent-skills/index.js';
import { manifestHash, manifestOf, readPackageArchive, type PackageFile } from '#package-store/index.js';
import type { Principal } from '../auth/principal.js';
import { assertMayPublish } from '../auth/token-authenticator.js';
import type { SkillVersionRecord } from '../catalog/skill-records.js';
import { SkillsRepository } from '../catalog/skills.repository.js';
import { APP_CONFIG, type AppConfig, packageLimitsOf } from '../config/app-config.js';
import type { VersionCompatibility } from '../compatibility/version-compatibility.js';
import { PackageInvalid, VersionImmutable } from '../problem/domain-errors.js';
import { DiscoveryService } from './discovery.service.js';
import { PackageIntake } from './package-intake.js';
import { publishedPath } from './package-paths.js';
import { VersionRecorder } from './version-recorder.js';

export type PublishOutcome =
  | { outcome: 'new' | 'unchanged'; version: SkillVersionRecord }
  | { outcome: 'valid'; name: string; version: string; contentHash: string; issues: unknown[]; compatibility: VersionCompatibility | null };

/**
 * Publishing a package over the API (`POST /v1/packages`): the archive is read within the package
 * limits and validated from its bytes by the same intake as a package found on disk
 * (loadPackageFiles), then recorded (VersionRecorder.recordVersion). An invalid package stores nothing.
 */
@Injectable()
export class PublishPackage {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly discovery: DiscoveryService,
    private readonly repository: SkillsRepository,
    private readonly versions: VersionRecorder,
    private readonly intake: PackageIntake,
  ) {}

  /** Publishes as `by`: an admin, or a publisher whose scopes cover the package's name (else 403, nothing stored). */
  async execute(archive: Readable, by: Principal, dryRun: boolean): Promise<PublishOutcome> {
    const files = await readPackageArchive(archive, packageLimitsOf(this.config));
    const contentHash = manifestHash(manifestOf(files));
    return this.discovery.serialised(async () => {
      const intake = await this.intake.validate(files, contentHash, packageLocation(files), 'published');
      // A name the package declares validly is checked first; an invalid package gets its report (422).
      if (intake.declaredName) assertMayPublish(by, intake.declaredName);
      const { snapshot: checked, issues, compatibility } = intake;
      if (!intake.valid) throw new PackageInvalid(checked.name, checked.version, issues);
      // Seed 004's trust scope, by who published it (a package found on disk is `system`).
      const scope = by.role === 'admin' ? ('admin' as const) : ('user' as const);
      const snapshot = { ...checked, contentHash, packagePath: publishedPath(checked.name, checked.version), scope };
      if (dryRun) return { outcome: 'valid', name: snapshot.name, version: snapshot.version, contentHash, issues, compatibility };
      const existing = await this.repository.findVersion(snapshot.name, snapshot.version);
      if (existing) {
        if (existing.contentHash === contentHash) return { outcome: 'unchanged', version: existing };
        throw new VersionImmutable(existing.name, existing.version, existing.status, existing.contentHash);
      }
      const creation = {
        from: null,
        to: snapshot.status,
        actor: by.identity,
        reason: 'published; validation passed',
        evidence: { content_hash: contentHash, errors: 0, warnings: countIssues(issues).warnings },
      };
      const created = await this.versions.recordVersion(files, snapshot, creation);
      if (!created) {
        const raced = await this.repository.findVersion(snapshot.name, snapshot.version);
        if (raced?.contentHash === contentHash) return { outcome: 'unchanged', version: raced };
        throw new VersionImmutable(snapshot.name, snapshot.version, raced?.status ?? 'stored', raced?.contentHash ?? null);
      }
      return { outcome: 'new', version: created };
    });
  }
}

const SAFE_SEGMENT = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * `<domain>/<name>` of the temporary copy, from definition.json when it names them: the loader
 * checks a package's name against its directory, as it does on disk.
 */
function packageLocation(files: PackageFile[]): [string, string] {
  const definition = files.find((file) => file.path === 'definition.json');
  const skillMd = files.find((file) => file.path === 'SKILL.md');
  if (!definition && skillMd) {
    // An Agent Skills package: its directory is its frontmatter name (the loader reports a bad one).
    const frontmatter = splitSkillMarkdown(skillMd.bytes.toString('utf8'))?.frontmatter ?? '';
    const name = /^name:\s*["']?([a-z0-9][a-z0-9-]{0,63})["']?\s*$/m.exec(frontmatter)?.[1];
    return ['agent-skills', name ?? 'package'];
  }
  try {
    const parsed = JSON.parse(definition?.bytes.toString('utf8') ?? '{}') as { name?: unknown; domain?: unknown };
    const name = typeof parsed.name === 'string' && SAFE_SEGMENT.test(parsed.name) ? parsed.name : 'package';
    const domain = typeof parsed.domain === 'string' && SAFE_SEGMENT.test(parsed.domain) ? parsed.domain : 'published';
    return [domain, name];
  } catch {
    return ['published', 'package'];
  }
}
