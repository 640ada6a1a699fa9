// What every drill shares: arguments, a bounded run time, cleanup that runs whatever happens
// (errors, Ctrl-C, SIGTERM, the time limit), criteria that decide the exit code, and a JSON summary
// for drills/main.mjs.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT } from '../../bench/support/registry-process.mjs';
import { readCommandLine } from '../../scripts/command-line.mjs';
import { serviceBundle } from '../../scripts/service-entries.mjs';

export { sleep };

const DIST = ['registry', 'executor', 'spice'].map(serviceBundle);

/**
 * The commit and the age of dist/, printed with every run so figures can be attributed to a build.
 * DRILL_SOURCE names the sources where there is no git checkout (e.g. a `git archive` export).
 */
function provenance() {
  let commit = process.env.DRILL_SOURCE ?? 'unknown';
  let dirty = false;
  try {
    commit = execFileSync('git', ['log', '-1', '--oneline'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    dirty =
      execFileSync('git', ['status', '--porcelain', '--', 'apps', 'libs'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim() !== '';
  } catch {
    /* not a git checkout */
  }
  const built = existsSync(path.join(REPO_ROOT, DIST[0])) ? statSync(path.join(REPO_ROOT, DIST[0])).mtime.toISOString() : 'missing';
  return { commit, dirty, built };
}

/**
 * Runs `main(ctx)` as a drill. `options`: { args: parseArgs option spec, timeoutMs(values) }.
 * ctx: { values, logDir, defer(fn), tempDir(label), check(name, ok, detail), figure(key, value), log(...) }.
 * Exit code: 0 when every check passed, 1 when one failed, 2 on an error, 124 on the time limit,
 * 130/143 on SIGINT/SIGTERM. Cleanups run in reverse order of registration, each bounded.
 */
export async function runDrill(name, main, options = {}) {
  const usage = `usage: node drills/${name}.mjs ${Object.keys(options.args ?? {})
    .map((k) => `[--${k} …]`)
    .join(' ')} [--json file]`;
  const { values } = readCommandLine(usage, { options: { ...options.args, json: { type: 'string' } } });
  for (const file of DIST) {
    if (!existsSync(path.join(REPO_ROOT, file))) {
      console.error(`${file} is missing: run "npm run --silent build" first`);
      process.exit(2);
    }
  }
  const cleanups = [];
  const checks = [];
  const figures = {};
  const started = Date.now();
  let finishing = null;
  const origin = provenance();
  console.log(
    `== drill ${name} | ${origin.commit}${origin.dirty ? ' (+ uncommitted changes in apps/ libs/)' : ''} | dist built ${origin.built}`,
  );

  // Process logs: kept (and their place printed) when the drill fails, removed when it passes.
  const logDir = await mkdtemp(path.join(os.tmpdir(), `drill-logs-${name}-`));
  const ctx = {
    values,
    logDir,
    defer: (fn) => cleanups.push(fn),
    log: (...parts) => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s]`, ...parts),
    async tempDir(label) {
      const dir = await mkdtemp(path.join(os.tmpdir(), `drill-${label}-`));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      return dir;
    },
    check(label, ok, detail = '') {
      checks.push({ label, ok: Boolean(ok), detail: String(detail) });
    },
    figure(key, value) {
      figures[key] = value;
    },
  };

  async function finish(code, reason) {
    if (finishing) return finishing;
    finishing = (async () => {
      if (reason) console.error(`drill ${name}: ${reason}`);
      for (const cleanup of cleanups.reverse()) {
        // A cleanup that hangs must not keep the drill alive: each gets 30 s.
        await Promise.race([Promise.resolve().then(cleanup), sleep(30_000, 'timeout', { ref: false })]).catch((error) =>
          console.error(`cleanup failed: ${error?.message ?? error}`),
        );
      }
      if (checks.length > 0) {
        console.log(`\n-- criteria (${name})`);
        for (const c of checks) console.log(`${c.ok ? 'PASS' : 'FAIL'}  ${c.label}${c.detail ? `  (${c.detail})` : ''}`);
      }
      const failed = checks.filter((c) => !c.ok).length;
      const exitCode = code !== 0 ? code : failed > 0 ? 1 : 0;
      if (exitCode === 0) await rm(logDir, { recursive: true, force: true });
      else console.log(`process logs kept in ${logDir}`);
      const summary = { drill: name, exitCode, seconds: Math.round((Date.now() - started) / 1000), ...origin, reason, figures, checks };
      if (values.json) await writeFile(values.json, JSON.stringify(summary, null, 2)).catch(() => undefined);
      console.log(`== drill ${name}: ${exitCode === 0 ? 'PASSED' : `FAILED (exit ${exitCode})`} in ${summary.seconds} s`);
      process.exit(exitCode);
    })();
    return finishing;
  }

  process.on('SIGINT', () => void finish(130, 'interrupted (SIGINT)'));
  process.on('SIGTERM', () => void finish(143, 'terminated (SIGTERM)'));
  const limitMs = options.timeoutMs ? options.timeoutMs(values) : 30 * 60_000;
  const limit = setTimeout(() => void finish(124, `time limit of ${Math.round(limitMs / 1000)} s reached`), limitMs);
  try {
    await main(ctx);
    clearTimeout(limit);
    await finish(0);
  } catch (error) {
    clearTimeout(limit);
    await finish(2, `error: ${error?.stack ?? error}`);
  }
}

/** Polls `probe` until it returns a truthy value (returned) or `timeoutMs` passes (returns null). */
export async function waitFor(probe, timeoutMs, stepMs = 100) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) return null;
    await sleep(stepMs);
  }
}

/** Percentile (nearest rank) of numbers; NaN for none. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** { p50, p95, max } of durations in ms, rounded. */
export function spread(values) {
  const round = (v) => (Number.isNaN(v) ? null : Math.round(v));
  return { p50: round(percentile(values, 50)), p95: round(percentile(values, 95)), max: round(percentile(values, 100)) };
}

export function seconds(ms) {
  return ms === null || ms === undefined || Number.isNaN(ms) ? '-' : `${(ms / 1000).toFixed(2)} s`;
}

/** Prints rows (objects with the same keys) as an aligned text table. */
export function printTable(rows) {
  if (rows.length === 0) return;
  const keys = Object.keys(rows[0]);
  const widths = keys.map((k) => Math.max(k.length, ...rows.map((r) => String(r[k] ?? '').length)));
  const line = (cells) => cells.map((c, i) => String(c ?? '').padEnd(widths[i])).join('  ');
  console.log(line(keys));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(keys.map((k) => row[k])));
}
