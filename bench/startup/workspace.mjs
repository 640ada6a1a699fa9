// Private working copies of the repository for start-up measurements: the sources without dist/ or any
// build cache, so a "first start" can be measured without touching the shared checkout that other
// people build, test and run from.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** What decides how `npm start` builds and starts: taken from another commit with BENCH_STARTUP_COMPARE_REF. */
export const START_UP_FILES = [
  'scripts/start.sh',
  'scripts/run-all.mjs',
  'scripts/build-if-changed.mjs',
  'scripts/bundle.mjs',
  'scripts/service-entries.mjs',
  'tsconfig.json',
  'tsconfig.build.json',
];

/**
 * The sources of `repoRoot` as they are now (tracked and untracked files that are not ignored) copied
 * once into a temporary directory, so every round of a run starts from the same sources even while
 * people edit the checkout. Resolves with { root, remove() }.
 */
export async function snapshotSources(repoRoot) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'bench-startup-sources-'));
  try {
    const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: repoRoot,
      maxBuffer: 64 << 20,
    })
      .toString()
      .split('\0')
      .filter(Boolean);
    for (const file of new Set(listed)) {
      const source = path.join(repoRoot, file);
      const info = statSync(source, { throwIfNoEntry: false });
      if (!info?.isFile()) continue; // deleted in the working tree, or a submodule
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      copyFileSync(source, path.join(root, file));
      chmodSync(path.join(root, file), info.mode & 0o777); // package manifests record the mode
    }
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}

/**
 * A fresh clone of the snapshot with a node_modules of symlinks to the installed packages of
 * `repoRoot` (an `npm ci` that took no time), except the workspace package @skill-registry/sdk, which
 * points at the copy's own libs/skill-sdk as npm links it, and without node_modules/.cache. With
 * `compareRef`, START_UP_FILES come from that commit (absent there: removed). Resolves with { root, remove() }.
 */
export async function createWorkspace(snapshotRoot, repoRoot, compareRef = null) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'bench-startup-'));
  try {
    cpSync(snapshotRoot, root, { recursive: true, preserveTimestamps: false });
    const modules = path.join(root, 'node_modules');
    mkdirSync(modules);
    for (const entry of readdirSync(path.join(repoRoot, 'node_modules'))) {
      if (entry === '.cache' || entry === '@skill-registry') continue;
      symlinkSync(path.join(repoRoot, 'node_modules', entry), path.join(modules, entry));
    }
    mkdirSync(path.join(modules, '@skill-registry'));
    symlinkSync('../../libs/skill-sdk', path.join(modules, '@skill-registry', 'sdk'));
    // A workspace's own node_modules (npm leaves some of its packages there, e.g. the console's Vite plugin), linked
    // the same way: without it the first start's console build failed in the copy.
    const { workspaces = [] } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
    for (const workspace of workspaces) {
      const own = path.join(repoRoot, workspace, 'node_modules');
      if (statSync(own, { throwIfNoEntry: false })?.isDirectory()) symlinkSync(own, path.join(root, workspace, 'node_modules'));
    }
    if (compareRef) {
      for (const file of START_UP_FILES) {
        let content = null;
        try {
          content = execFileSync('git', ['show', `${compareRef}:${file}`], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'ignore'] });
        } catch {
          // not in that commit
        }
        if (content === null) rmSync(path.join(root, file), { force: true });
        else writeFileSync(path.join(root, file), content);
      }
    }
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}
