import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PackageLinkOutside, readPackageDir } from '#package-store/package-files.js';
import { EMPTY_PACKAGE_HASH, findSkillPackages, hashSkillPackage, listPackageFiles } from './package-files.js';

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/skill-packages');
const good = join(fixtures, 'good/demo/echo_text');

let scratch: string;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'skill-loader-files-'));
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function touch(path: string, content = ''): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
}

describe('findSkillPackages', () => {
  it('finds exactly the fixture packages', async () => {
    const brokenNames = (await readdir(join(fixtures, 'broken/demo'))).sort();
    const expected = [...brokenNames.map((name) => join(fixtures, 'broken/demo', name)), good].sort();
    expect(await findSkillPackages([fixtures])).toEqual(expected);
    expect(brokenNames.length).toBeGreaterThanOrEqual(25);
  });

  it('recognises any marker file, and does not descend into packages, node_modules or dot-directories', async () => {
    await touch(join(scratch, 'catalog/mech/by_definition/definition.json'), '{}');
    await touch(join(scratch, 'catalog/mech/by_handler/handler.ts'));
    await touch(join(scratch, 'catalog/mech/by_docs/SKILL.md'));
    await touch(join(scratch, 'catalog/mech/by_docs/nested/definition.json'), '{}');
    await touch(join(scratch, 'catalog/mech/not_a_package/notes.txt'));
    await touch(join(scratch, 'catalog/mech/node_modules/dep/definition.json'), '{}');
    await touch(join(scratch, 'catalog/.trash/old/definition.json'), '{}');
    await mkdir(join(scratch, 'catalog/mech/dir_named_marker/definition.json'), { recursive: true });
    const found = await findSkillPackages([join(scratch, 'catalog')]);
    expect(found).toEqual(['by_definition', 'by_docs', 'by_handler'].map((name) => join(scratch, 'catalog/mech', name)));
  });

  it('accepts a package as root, skips missing roots, follows directory symlinks and removes duplicates', async () => {
    await touch(join(scratch, 'real/demo/linked/SKILL.md'));
    await mkdir(join(scratch, 'links'));
    await symlink(join(scratch, 'real/demo'), join(scratch, 'links/demo'));
    const found = await findSkillPackages([good, join(scratch, 'missing'), join(scratch, 'links'), join(scratch, 'real'), good]);
    expect(found).toEqual([join(scratch, 'real/demo/linked'), good].sort());
    expect(await findSkillPackages([join(scratch, 'missing')])).toEqual([]);
  });
});

describe('hashSkillPackage', () => {
  it('is stable and independent of where the package lives', async () => {
    const copy = join(scratch, 'demo/echo_text');
    await cp(good, copy, { recursive: true });
    const first = await hashSkillPackage(good);
    expect(first).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await hashSkillPackage(good)).toBe(first);
    expect(await hashSkillPackage(copy)).toBe(first);
  });

  it('changes when a file changes, is added or is renamed', async () => {
    const copy = join(scratch, 'demo/echo_text');
    await cp(good, copy, { recursive: true });
    const original = await hashSkillPackage(copy);
    await writeFile(join(copy, 'SKILL.md'), '---\nname: echo_text\ndescription: changed\n---\n');
    const edited = await hashSkillPackage(copy);
    expect(edited).not.toBe(original);
    await touch(join(copy, 'fixtures/sample.json'), '{}');
    const added = await hashSkillPackage(copy);
    expect(added).not.toBe(edited);
    await rm(join(copy, 'fixtures'), { recursive: true });
    await touch(join(copy, 'fixtures2/sample.json'), '{}');
    expect(await hashSkillPackage(copy)).not.toBe(added);
  });

  it('ignores dotfiles, node_modules and dist', async () => {
    const copy = join(scratch, 'demo/echo_text');
    await cp(good, copy, { recursive: true });
    const original = await hashSkillPackage(copy);
    await touch(join(copy, '.DS_Store'), 'x');
    await touch(join(copy, '.cache/a.txt'), 'x');
    await touch(join(copy, 'node_modules/dep/index.js'), 'x');
    await touch(join(copy, 'dist/handler.js'), 'x');
    expect(await hashSkillPackage(copy)).toBe(original);
    expect(await listPackageFiles(copy)).toEqual(['SKILL.md', 'definition.json', 'handler.spec.ts', 'handler.ts', 'schema.ts']);
  });

  it('gives an empty package the empty hash', async () => {
    await mkdir(join(scratch, 'empty'));
    expect(await hashSkillPackage(join(scratch, 'empty'))).toBe(EMPTY_PACKAGE_HASH);
  });
});

describe('symbolic links in a package', () => {
  it('follows a link to a file of the package; refuses one to a file outside it (PackageLinkOutside), as readPackageDir does', async () => {
    const pkg = join(scratch, 'pkg');
    await touch(join(pkg, 'SKILL.md'), '# notes');
    await touch(join(pkg, 'docs/guide.md'), 'guide');
    await symlink('docs/guide.md', join(pkg, 'guide.md'));
    expect(await listPackageFiles(pkg)).toEqual(['SKILL.md', 'docs/guide.md', 'guide.md']);
    expect((await readPackageDir(pkg)).map((file) => [file.path, file.bytes.toString()])).toEqual([
      ['SKILL.md', '# notes'],
      ['docs/guide.md', 'guide'],
      ['guide.md', 'guide'],
    ]);

    await touch(join(scratch, 'secret.txt'), 'not the package’s');
    for (const target of [join(scratch, 'secret.txt'), '../secret.txt', '/proc/self/environ']) {
      await rm(join(pkg, 'leak.txt'), { force: true });
      await symlink(target, join(pkg, 'leak.txt'));
      await expect(listPackageFiles(pkg)).rejects.toThrow(PackageLinkOutside);
      await expect(hashSkillPackage(pkg)).rejects.toThrow("'leak.txt' is a symbolic link to a file outside the package");
      await expect(readPackageDir(pkg)).rejects.toThrow(PackageLinkOutside);
    }
    // A link that leads nowhere, or to a directory (never followed: it could loop), is no file of the package: left out.
    await rm(join(pkg, 'leak.txt'));
    await symlink(join(scratch, 'missing'), join(pkg, 'dangling.txt'));
    await symlink(scratch, join(pkg, 'outside-dir'));
    expect((await readPackageDir(pkg)).map((file) => file.path)).toEqual(['SKILL.md', 'docs/guide.md', 'guide.md']);
  });
});
