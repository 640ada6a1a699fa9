import type pg from 'pg';
import { type ManifestEntry, type PackageFile, manifestHash, manifestOf } from './package-files.js';

/**
 * Where file contents live, by sha256. The one port an object store (S3, GCS) would implement to
 * take the blobs out of Postgres; manifests stay in the database either way.
 */
export interface BlobStore {
  /** Stores blobs not stored yet (idempotent: identical content is kept once). */
  put(blobs: { sha256: string; bytes: Buffer }[]): Promise<void>;
  /** The blobs asked for that exist. */
  get(sha256s: string[]): Promise<Map<string, Buffer>>;
}

/** A stored package: its content hash and manifest. */
export interface StoredPackage {
  contentHash: string;
  manifest: ManifestEntry[];
}

/** Blobs in Postgres (package_blobs). */
export class PostgresBlobStore implements BlobStore {
  constructor(private readonly pool: pg.Pool) {}

  async put(blobs: { sha256: string; bytes: Buffer }[]): Promise<void> {
    if (blobs.length === 0) return;
    await this.pool.query(
      `INSERT INTO package_blobs (sha256, size, content)
       SELECT * FROM unnest($1::text[], $2::int[], $3::bytea[]) ON CONFLICT (sha256) DO NOTHING`,
      [blobs.map((blob) => blob.sha256), blobs.map((blob) => blob.bytes.length), blobs.map((blob) => blob.bytes)],
    );
  }

  async get(sha256s: string[]): Promise<Map<string, Buffer>> {
    const result = await this.pool.query(`SELECT sha256, content FROM package_blobs WHERE sha256 = ANY($1::text[])`, [sha256s]);
    return new Map(result.rows.map((row) => [row.sha256 as string, row.content as Buffer]));
  }
}

/**
 * The content-addressed package store: a package is its files' blobs plus a manifest whose hash
 * is the version's content_hash. Saving is idempotent, stored packages never change.
 */
export class PackageStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly blobs: BlobStore = new PostgresBlobStore(pool),
  ) {}

  /** Stores `files` as one package (blobs first, then the manifest that names them); returns its hash. */
  async save(files: PackageFile[]): Promise<StoredPackage> {
    return (await this.saveMany([files]))[0] as StoredPackage;
  }

  /** Several packages at once: every blob in one write, every manifest in one statement (discovery's batches). */
  async saveMany(packages: PackageFile[][]): Promise<StoredPackage[]> {
    const blobs = new Map<string, Buffer>();
    const stored = packages.map((files) => {
      const manifest = manifestOf(files);
      const shaByPath = new Map(manifest.map((entry) => [entry.path, entry.sha256]));
      for (const file of files) blobs.set(shaByPath.get(file.path) as string, file.bytes);
      return { contentHash: manifestHash(manifest), manifest };
    });
    await this.blobs.put([...blobs].map(([sha256, bytes]) => ({ sha256, bytes })));
    const unique = [...new Map(stored.map((item) => [item.contentHash, item])).values()];
    await this.pool.query(
      `INSERT INTO packages (content_hash, manifest, file_count, total_size)
       SELECT * FROM unnest($1::text[], $2::jsonb[], $3::int[], $4::bigint[]) ON CONFLICT (content_hash) DO NOTHING`,
      [
        unique.map((item) => item.contentHash),
        unique.map((item) => JSON.stringify(item.manifest)),
        unique.map((item) => item.manifest.length),
        unique.map((item) => item.manifest.reduce((sum, entry) => sum + entry.size, 0)),
      ],
    );
    return stored;
  }

  /** Those of `contentHashes` that name a stored package. */
  async stored(contentHashes: string[]): Promise<Set<string>> {
    if (contentHashes.length === 0) return new Set();
    const result = await this.pool.query(`SELECT content_hash FROM packages WHERE content_hash = ANY($1::text[])`, [contentHashes]);
    return new Set(result.rows.map((row) => row.content_hash as string));
  }

  /** The manifest of a stored package, or null when no package has that hash. */
  async manifest(contentHash: string): Promise<ManifestEntry[] | null> {
    const result = await this.pool.query(`SELECT manifest FROM packages WHERE content_hash = $1`, [contentHash]);
    return result.rows[0] ? (result.rows[0].manifest as ManifestEntry[]) : null;
  }

  /** One file of a stored package, by its package-relative path; null when the package or the path is not there. */
  async readFile(contentHash: string, path: string): Promise<{ entry: ManifestEntry; bytes: Buffer } | null> {
    const manifest = await this.manifest(contentHash);
    const entry = manifest?.find((candidate) => candidate.path === path);
    if (!entry) return null;
    const bytes = (await this.blobs.get([entry.sha256])).get(entry.sha256);
    return bytes ? { entry, bytes } : null;
  }

  /** Every file of a stored package with its bytes, or null when no package has that hash. */
  async read(contentHash: string): Promise<{ manifest: ManifestEntry[]; files: PackageFile[] } | null> {
    const manifest = await this.manifest(contentHash);
    if (!manifest) return null;
    const contents = await this.blobs.get([...new Set(manifest.map((entry) => entry.sha256))]);
    const files = manifest.map((entry) => {
      const bytes = contents.get(entry.sha256);
      if (!bytes) throw new Error(`package ${contentHash} is missing blob ${entry.sha256} (${entry.path})`);
      return { path: entry.path, mode: entry.mode, bytes };
    });
    return { manifest, files };
  }
}
