// The Debian programs of the multi-node drill (redis-server, pgbouncer, haproxy): installed by
// scripts/install-scale-programs.sh when missing (as root), else the drill stops saying what to install.
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../../bench/support/registry-process.mjs';

const PROGRAMS = ['redis-server', 'redis-cli', 'pgbouncer', 'haproxy'];

function missing() {
  return PROGRAMS.filter((program) => spawnSync('sh', ['-c', `command -v ${program}`]).status !== 0);
}

export function ensureScalePrograms() {
  if (missing().length === 0) return;
  execFileSync('bash', [path.join(REPO_ROOT, 'scripts/install-scale-programs.sh')], { stdio: 'inherit' });
  const still = missing();
  if (still.length > 0) throw new Error(`the scale drill needs ${still.join(', ')}: run scripts/install-scale-programs.sh as root`);
}
