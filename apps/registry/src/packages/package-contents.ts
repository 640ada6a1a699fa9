import { Injectable } from '@nestjs/common';
import { PackageStore, mediaTypeOf, packPackageArchive, type ManifestEntry } from '#package-store/index.js';
import { SkillQueries } from '../skills/skill-queries.js';
import { PackageFileNotFound, PackageNotStored } from '../problem/domain-errors.js';

/** What the registry serves of a version's stored package: its manifest, and the package as an archive. */
@Injectable()
export class PackageContents {
  constructor(
    private readonly skills: SkillQueries,
    private readonly store: PackageStore,
  ) {}

  /** Every file of the version's package with path, size, mode and sha256, and the package's content hash. */
  async files(name: string, version: string): Promise<{ contentHash: string; files: ManifestEntry[] }> {
    const { contentHash } = this.skills.version(name, version);
    const manifest = await this.store.manifest(contentHash);
    if (!manifest) throw new PackageNotStored(name, version);
    return { contentHash, files: manifest };
  }

  /** One stored file of the version's package, with its manifest entry and media type. */
  async file(name: string, version: string, path: string) {
    const { contentHash } = this.skills.version(name, version);
    const found = await this.store.readFile(contentHash, path);
    if (!found) throw new PackageFileNotFound(name, version, path);
    return { ...found, mediaType: mediaTypeOf(path) };
  }

  /** The stored package as a gzip-compressed tar (entries at the archive root), with its content hash. */
  async archive(name: string, version: string): Promise<{ contentHash: string; archive: Buffer }> {
    const { contentHash } = this.skills.version(name, version);
    const stored = await this.store.read(contentHash);
    if (!stored) throw new PackageNotStored(name, version);
    return { contentHash, archive: await packPackageArchive(stored.files) };
  }
}
