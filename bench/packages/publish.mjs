// bench/packages/publish.mjs: publishing the 12 catalog packages over REST (POST /v1/packages),
// packages per second, against registering the same packages from disk (POST /v1/admin/skills)
// in the same run. Usage: npm run build && node bench/packages/publish.mjs  (BENCH_PUBLISH_ROUNDS=5)
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { packPackageArchive, readPackageDir } from '#package-store/index.js';
import { ADMIN_TOKEN, REPO_ROOT, benchDatabaseUrl, dropDatabase, startRegistryProcess, stopProcess } from '../support/registry-process.mjs';

const ROUNDS = Number(process.env.BENCH_PUBLISH_ROUNDS ?? 5);

async function catalogPackages() {
  const dirs = [];
  for (const domain of await readdir(path.join(REPO_ROOT, 'skills'))) {
    // skills/previous holds older versions of three of the twelve, not more skills.
    if (domain === 'previous') continue;
    for (const name of await readdir(path.join(REPO_ROOT, 'skills', domain))) dirs.push(path.join(REPO_ROOT, 'skills', domain, name));
  }
  return dirs;
}

/** The catalog under `root`, every version bumped to `1.<round>.0` so each round registers new versions. */
async function writeRound(root, dirs, round) {
  const copies = [];
  for (const dir of dirs) {
    const target = path.join(root, `r${round}`, path.basename(path.dirname(dir)), path.basename(dir));
    await cp(dir, target, { recursive: true, filter: (source) => !source.includes('node_modules') });
    const definition = JSON.parse(await readFile(path.join(target, 'definition.json'), 'utf8'));
    definition.version = `1.${round}.0`;
    await writeFile(path.join(target, 'definition.json'), JSON.stringify(definition, null, 2));
    copies.push(target);
  }
  return copies;
}

async function main() {
  const dirs = await catalogPackages();
  const root = await mkdtemp(path.join(os.tmpdir(), 'bench-publish-'));
  const databaseUrl = benchDatabaseUrl();
  let registry;
  try {
    // The registry's root is empty at start (so start-up discovery registers nothing); the disk copies appear later.
    registry = await startRegistryProcess({ DATABASE_URL: databaseUrl, SKILL_PATHS: root, LOG_LEVEL: 'error' });
    const post = async (p, body, contentType) => {
      const response = await fetch(`${registry.url}${p}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': contentType },
        body,
      });
      const answer = await response.json();
      if (response.status !== 201) throw new Error(`${p}: ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
    };
    const time = async (work) => {
      const started = performance.now();
      await work();
      return (performance.now() - started) / 1000;
    };
    const publishedDirs = [];
    for (let round = 0; round < ROUNDS; round++)
      publishedDirs.push(...(await writeRound(path.join(root, '..', `${path.basename(root)}-pub`), dirs, round)));
    const archives = await Promise.all(publishedDirs.map(async (dir) => packPackageArchive(await readPackageDir(dir))));
    const diskDirs = [];
    for (let round = 0; round < ROUNDS; round++) diskDirs.push(...(await writeRound(root, dirs, 100 + round)));
    const publishSeconds = await time(async () => {
      for (const archive of archives) await post('/v1/packages', archive, 'application/gzip');
    });
    const diskSeconds = await time(async () => {
      for (const dir of diskDirs) await post('/v1/admin/skills', JSON.stringify({ path: dir }), 'application/json');
    });
    const each = (seconds, count) => `${(count / seconds).toFixed(1)} packages/s (${((seconds * 1000) / count).toFixed(0)} ms each)`;
    console.log(`publish: the ${dirs.length} catalog packages × ${ROUNDS} versions, one request at a time, ${os.cpus().length} cores`);
    console.log(`  POST /v1/packages (archive)     ${each(publishSeconds, archives.length)}`);
    console.log(`  POST /v1/admin/skills (disk)    ${each(diskSeconds, diskDirs.length)}   <- baseline, same run`);
    console.log(
      `  ratio                           ${(diskSeconds / diskDirs.length / (publishSeconds / archives.length)).toFixed(2)}× the disk rate`,
    );
  } finally {
    if (registry) await stopProcess(registry.child);
    await dropDatabase(databaseUrl).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
    await rm(path.join(root, '..', `${path.basename(root)}-pub`), { recursive: true, force: true });
  }
}

await main();
