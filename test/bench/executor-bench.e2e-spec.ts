import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../support/skill-packages.js';

const run = promisify(execFile);

/**
 * Smoke version of `npm run bench:executor` (bench/executor/main.mjs): a few executions at one concurrency, on the
 * built services, so the bench keeps working as the code under it changes. Without the peers (they are installed from
 * the npm registry on a bench's first run, which a test must not depend on); the figures are not checked, only that
 * every part ran and reported.
 */
describe('bench smoke: bench/executor/main.mjs at a small scale', () => {
  it('runs the end to end in turns, the synchronous calls and the hard timeout, and loses no execution', async () => {
    const env = {
      ...process.env,
      BENCH_CONCURRENCIES: '2',
      BENCH_JOBS: '20',
      BENCH_ROUNDS: '2',
      BENCH_WARMUP: '10',
      BENCH_SYNC_SAMPLES: '10',
      BENCH_PEERS: '0',
      BENCH_SANDBOX_COMPARE: '',
    };
    // Exit code 1 when a target is missed (at this scale they mean nothing): what matters is that it ran to its report.
    const { stdout } = await run(process.execPath, [path.join(REPO_ROOT, 'bench/executor/main.mjs')], {
      cwd: REPO_ROOT,
      env,
      timeout: 150_000,
    }).catch((error: { code?: number; stdout?: string; stderr?: string }) => {
      if (error.code !== 1 || !error.stdout) throw new Error(`bench failed (${error.code}): ${error.stderr ?? ''}\n${error.stdout ?? ''}`);
      return { stdout: error.stdout };
    });
    expect(stdout).toMatch(/^ {2}round 1: system \d+\/s$/m);
    expect(stdout).toMatch(/^ {2}round 2: system \d+\/s$/m);
    expect(stdout).toMatch(/^REST end to end \(concurrency 2\) +\d+ +[\d.]+ +[\d.]+$/m);
    expect(stdout).toMatch(/^REST \?wait, one client +\d+ +[\d.]+ +[\d.]+$/m);
    expect(stdout).toMatch(/^CPU per execution, REST \(c 2\): +[\d.-]+ ms \(registry [\d.-]+, executor [\d.-]+, sandbox [\d.-]+/m);
    expect(stdout).toContain('PASS  0 no-op executions did not succeed');
    expect(stdout).toMatch(/^(PASS|FAIL) {2}1 s timeout stopped a hung handler after \d+ ms/m);
    expect(stdout).not.toMatch(/failed:/);
  }, 180_000);
});
