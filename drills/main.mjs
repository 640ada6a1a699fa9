// Runs every fault drill in sequence (one at a time: they share 2 cores with whatever else runs)
// with modest settings, then prints one summary table. Exit code 1 when any drill failed.
//
//   npm run drill [-- --build] [-- --kill-rounds 5]
//
// --build runs `npm run --silent build` first so the drills measure the current sources.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { readCommandLine } from '../scripts/command-line.mjs';
import { printTable } from './support/harness.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const { values } = readCommandLine('usage: npm run drill [-- --build] [-- --kill-rounds 5]', {
  options: { build: { type: 'boolean', default: false }, 'kill-rounds': { type: 'string', default: '5' } },
});

const DRILLS = [
  { name: 'kill-executor', args: ['--rounds', values['kill-rounds']] },
  { name: 'postgres-restart', args: ['--restarts', '2'] },
  { name: 'redis-restart', args: ['--restarts', '2'] },
  { name: 'adapter-kill', args: [] },
];
const FUZZ = path.join(HERE, 'fuzz/main.mjs');
// Every drill bounds itself; this is the backstop should one not.
const CHILD_LIMIT_MS = 45 * 60_000;

let current = null;
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted = true;
    // The drill stops its own services and children on SIGTERM; give it the time to.
    if (current && current.exitCode === null) current.kill('SIGTERM');
  });
}

function run(file, args) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [file, ...args], { stdio: 'inherit' });
    current = child;
    const limit = setTimeout(async () => {
      console.error(`${path.basename(file)} exceeded ${CHILD_LIMIT_MS / 60_000} min: stopping it`);
      child.kill('SIGTERM');
      await sleep(60_000);
      if (child.exitCode === null) child.kill('SIGKILL');
    }, CHILD_LIMIT_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(limit);
      current = null;
      resolve({ code: code ?? (signal ? 128 : 1), seconds: Math.round((Date.now() - started) / 1000) });
    });
  });
}

/** The few figures that say most, per drill, from its JSON summary. */
function keyFigures(summary) {
  const f = summary?.figures ?? {};
  switch (summary?.drill) {
    case 'kill-executor':
      return `lost ${f.lost}, dup ${f.duplicated}, stuck ${f.stuck}, recovery p50/p95/max ${[f.recovery_ms?.p50, f.recovery_ms?.p95, f.recovery_ms?.max].map((ms) => (ms === null || ms === undefined ? '-' : `${(ms / 1000).toFixed(1)}`)).join('/')} s`;
    case 'postgres-restart':
    case 'redis-restart':
      return `exits ${f.process_exits}, non-503 ${f.non_503_errors}, slow ${f.slow_answers}, accepted ${f.accepted} (not terminal ${f.not_terminal}, not ok ${f.not_succeeded}), twice ${f.ran_twice}`;
    case 'adapter-kill':
      return `mid-call: ${f.mid_call}; outage: ${f.outage}; first success ${f.first_success_ms === null || f.first_success_ms === undefined ? '-' : `${(f.first_success_ms / 1000).toFixed(1)} s`}; exits ${f.process_exits}`;
    default:
      return '';
  }
}

if (values.build) {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit', cwd: path.resolve(HERE, '..') });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const dir = await mkdtemp(path.join(os.tmpdir(), 'drill-summary-'));
const rows = [];
try {
  for (const drill of DRILLS) {
    if (interrupted) break;
    const json = path.join(dir, `${drill.name}.json`);
    console.log(`\n################ ${drill.name} ${drill.args.join(' ')}`);
    const { code, seconds } = await run(path.join(HERE, `${drill.name}.mjs`), [...drill.args, '--json', json]);
    const summary = await readFile(json, 'utf8').then(JSON.parse, () => null);
    const failed = (summary?.checks ?? []).filter((c) => !c.ok).map((c) => c.label);
    rows.push({
      drill: drill.name,
      result: code === 0 ? 'PASS' : 'FAIL',
      exit: code,
      seconds,
      figures: keyFigures(summary),
      failed: failed.join('; '),
    });
  }
  if (existsSync(FUZZ) && !interrupted) {
    console.log('\n################ fuzz --cases 10000');
    const { code, seconds } = await run(FUZZ, ['--cases', '10000']);
    rows.push({ drill: 'fuzz', result: code === 0 ? 'PASS' : 'FAIL', exit: code, seconds, figures: '', failed: '' });
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

console.log('\n================ drill summary');
printTable(rows);
if (interrupted) console.log('(interrupted)');
process.exit(interrupted ? 130 : rows.every((r) => r.exit === 0) ? 0 : 1);
