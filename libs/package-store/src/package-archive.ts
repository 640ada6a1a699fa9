import { type Readable, Transform } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { DEFAULT_PACKAGE_LIMITS, type PackageFile, type PackageLimits, isSkippedEntry, normaliseMode } from './package-files.js';

/** An archive refused before anything of it is kept; `entry` names the offending member when there is one. */
export class ArchiveRejected extends Error {
  constructor(
    readonly reason: string,
    readonly entry: string | null = null,
    readonly limit: string | null = null,
  ) {
    super(entry ? `archive entry '${entry.slice(0, 200)}': ${reason}` : reason);
    this.name = 'ArchiveRejected';
  }
}

/** Beyond this decompressed/compressed ratio an archive is treated as a decompression bomb. */
const MAX_COMPRESSION_RATIO = 200;

/** Counts the bytes that pass; fails the stream with what `refuse` returns for a total (null: go on). */
function byteCap(refuse: (total: number) => Error | null): Transform {
  let total = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      total += chunk.length;
      const error = refuse(total);
      if (error) callback(error);
      else callback(null, chunk);
    },
  });
}

/**
 * Reads a gzip-compressed tar of one package into memory, refusing (with the entry named) what a
 * package may not contain: absolute paths, `..`, symlinks, hard links, devices, FIFOs, duplicates,
 * entries over the limits, a decompression bomb, a truncated or non-gzip body. Entries may sit at
 * the archive root or under one top-level directory. Nothing is written anywhere.
 */
export async function readPackageArchive(body: Readable, limits: PackageLimits = DEFAULT_PACKAGE_LIMITS): Promise<PackageFile[]> {
  const files = new Map<string, PackageFile>();
  let compressed = 0;
  let total = 0;
  const extract = tar.extract();
  let rejected: ArchiveRejected | null = null;
  extract.on('entry', (header, stream, next) => {
    const fail = (reason: string, limit: string | null = null) => {
      rejected ??= new ArchiveRejected(reason, header.name, limit);
      stream.on('error', () => undefined);
      stream.resume();
      // Stopped without an error of its own: the pipeline ends early and `rejected` says why.
      extract.destroy();
    };
    const name = header.name.replace(/^(\.\/)+/, '');
    if (header.type === 'directory') {
      stream.resume();
      return next();
    }
    if (header.type !== 'file' && header.type !== 'contiguous-file')
      return fail(`${header.type} entries are not allowed (regular files only)`);
    if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return fail('absolute paths are not allowed');
    const parts = name.split('/');
    if (parts.some((part) => part === '..')) return fail("'..' is not allowed in a path");
    if (parts.some((part) => part === '') || name.includes('\\') || name.includes('\u0000')) return fail('not a clean relative path');
    if (files.has(name)) return fail('duplicate entry');
    const size = header.size ?? 0;
    if (size > limits.maxFileBytes) return fail(`larger than PACKAGE_MAX_FILE_BYTES (${limits.maxFileBytes})`, 'PACKAGE_MAX_FILE_BYTES');
    if (files.size + 1 > limits.maxFiles) return fail(`more than PACKAGE_MAX_FILES (${limits.maxFiles}) files`, 'PACKAGE_MAX_FILES');
    total += size;
    if (total > limits.maxTotalBytes) return fail(`package larger than PACKAGE_MAX_BYTES (${limits.maxTotalBytes})`, 'PACKAGE_MAX_BYTES');
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
    stream.on('end', () => {
      files.set(name, { path: name, mode: normaliseMode(header.mode ?? 0o644), bytes: Buffer.concat(chunks) });
      next();
    });
  });
  // The decompressed stream is capped absolutely (the package limit plus tar's headers) and by its ratio to the input.
  const maxInflated = limits.maxTotalBytes + (limits.maxFiles + 16) * 1024;
  const bomb = () =>
    new ArchiveRejected(
      `decompresses beyond ${MAX_COMPRESSION_RATIO}× its size or past PACKAGE_MAX_BYTES (${limits.maxTotalBytes} bytes): a decompression bomb`,
      null,
      'PACKAGE_MAX_BYTES',
    );
  const inputCap = byteCap((count) => {
    compressed = count;
    return count > limits.maxTotalBytes
      ? new ArchiveRejected(`larger than PACKAGE_MAX_BYTES (${limits.maxTotalBytes})`, null, 'PACKAGE_MAX_BYTES')
      : null;
  });
  const gunzip = createGunzip();
  const inflatedCap = byteCap((count) =>
    count > maxInflated || (count > 1024 * 1024 && count > compressed * MAX_COMPRESSION_RATIO) ? bomb() : null,
  );
  // Piped by hand with a listener on every stage: stream.pipeline does not wire tar-stream's streamx streams fully.
  await new Promise<void>((resolve, reject) => {
    let settled = false;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      // The caller's stream is let go, not destroyed: for an HTTP request, destroying it resets the connection before
      // the refusal is written (issue 24 §4). What is left of it is the caller's to drain or close.
      body.unpipe(inputCap);
      for (const stage of [inputCap, gunzip, inflatedCap]) stage.destroy();
      if (rejected) return reject(rejected);
      if (!error) return resolve();
      if (error instanceof ArchiveRejected) return reject(error);
      const code = (error as { code?: string }).code ?? '';
      if (code.startsWith('Z_')) return reject(new ArchiveRejected('not a gzip-compressed tar (or truncated)'));
      reject(new ArchiveRejected(`not a valid tar archive: ${(error as Error).message}`));
    };
    for (const stage of [body, inputCap, gunzip, inflatedCap]) stage.on('error', finish);
    extract.on('error', finish);
    extract.on('finish', () => finish());
    extract.on('close', () => finish(rejected ?? new ArchiveRejected('the archive ended early')));
    body.pipe(inputCap).pipe(gunzip).pipe(inflatedCap).pipe(extract);
  });
  return stripCommonTop([...files.values()].filter((file) => !file.path.split('/').some(isSkippedEntry)));
}

/** Files under one top-level directory, and none beside it, are the package itself. */
function stripCommonTop(files: PackageFile[]): PackageFile[] {
  if (files.length === 0) throw new ArchiveRejected('the archive holds no files');
  const tops = new Set(files.map((file) => (file.path.includes('/') ? file.path.split('/')[0] : '')));
  if (tops.size !== 1 || tops.has('')) return files;
  const [top] = [...tops];
  return files.map((file) => ({ ...file, path: file.path.slice((top as string).length + 1) }));
}

/** A gzip-compressed tar of `files` (what GET .../package serves and the CLI packs). */
export async function packPackageArchive(files: PackageFile[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  const done = new Promise<void>((resolve, reject) => {
    pack.on('end', resolve);
    pack.on('error', reject);
  });
  for (const file of files) pack.entry({ name: file.path, mode: file.mode, size: file.bytes.length, mtime: new Date(0) }, file.bytes);
  pack.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}
