import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { ArchiveRejected, packPackageArchive, readPackageArchive } from './package-archive.js';
import { manifestHash, manifestOf } from './package-files.js';

type Entry = { name: string; type?: string; mode?: number; linkname?: string; body?: string | Buffer };

async function tarOf(entries: Entry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  const done = new Promise<void>((resolve) => pack.on('end', () => resolve()));
  for (const { body, ...header } of entries) pack.entry(header as never, body ?? '');
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

const gz = async (entries: Entry[]) => gzipSync(await tarOf(entries));
const read = (bytes: Buffer, limits?: Parameters<typeof readPackageArchive>[1]) => readPackageArchive(Readable.from([bytes]), limits);
const file = (name: string, body: string | Buffer = 'x'): Entry => ({ name, body, type: 'file', mode: 0o644 });

describe('package archives', () => {
  it('reads a package at the archive root or under one top-level directory, with the same content hash', async () => {
    const atRoot = await read(await gz([file('definition.json', '{}'), file('lib/a.ts', 'a')]));
    const underTop = await read(
      await gz([{ name: 'pkg', type: 'directory' }, file('pkg/definition.json', '{}'), file('pkg/lib/a.ts', 'a')]),
    );
    expect(atRoot.map((f) => f.path)).toEqual(['definition.json', 'lib/a.ts']);
    expect(manifestHash(manifestOf(underTop))).toBe(manifestHash(manifestOf(atRoot)));
    const roundTrip = await read(await packPackageArchive(atRoot));
    expect(manifestHash(manifestOf(roundTrip))).toBe(manifestHash(manifestOf(atRoot)));
  });

  it.each([
    ['an absolute path', [file('/etc/passwd')], /absolute/],
    ['a .. segment', [file('pkg/../../evil.ts')], /'\.\.'/],
    ['a symlink', [{ name: 'link', type: 'symlink', linkname: '/etc/passwd' } as Entry], /symlink entries/],
    ['a hard link', [file('a.ts'), { name: 'b.ts', type: 'link', linkname: 'a.ts' } as Entry], /link entries/],
    ['a character device', [{ name: 'dev', type: 'character-device' } as Entry], /character-device/],
    ['a FIFO', [{ name: 'pipe', type: 'fifo' } as Entry], /fifo/],
    ['a duplicate entry', [file('a.ts'), file('a.ts')], /duplicate/],
  ])('refuses %s, naming the entry', async (_what, entries, reason) => {
    const error = await read(await gz(entries as Entry[])).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ArchiveRejected);
    expect((error as ArchiveRejected).message).toMatch(reason);
    expect((error as ArchiveRejected).entry).toBeTruthy();
  });

  it('refuses entries over the limits, naming the limit', async () => {
    const limits = { maxTotalBytes: 10_000, maxFiles: 2, maxFileBytes: 5_000 };
    await expect(read(await gz([file('a', 'x'.repeat(6000))]), limits)).rejects.toMatchObject({
      limit: 'PACKAGE_MAX_FILE_BYTES',
      entry: 'a',
    });
    await expect(read(await gz([file('a'), file('b'), file('c')]), limits)).rejects.toMatchObject({ limit: 'PACKAGE_MAX_FILES' });
  });

  it('refuses a decompression bomb, a truncated body and a body that is not gzip', async () => {
    const bomb = await gz([file('zeros', Buffer.alloc(30 * 1024 * 1024))]);
    expect(bomb.length).toBeLessThan(100_000);
    await expect(read(bomb)).rejects.toMatchObject({ limit: expect.stringMatching(/PACKAGE_MAX/) });
    const whole = await gz([file('definition.json', '{"name":"x"}'.repeat(100))]);
    await expect(read(whole.subarray(0, whole.length - 20))).rejects.toBeInstanceOf(ArchiveRejected);
    await expect(read(Buffer.from('definitely not gzip'))).rejects.toThrow(/not a gzip/);
    await expect(read(gzipSync(Buffer.from('plain text, not a tar')))).rejects.toBeInstanceOf(ArchiveRejected);
  });
});
