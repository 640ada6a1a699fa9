// The multi-node drill as a library, for its smoke test (test/drills/scale.e2e-spec.ts): the same body as
// `npm run drill:scale`, with a context that collects the checks instead of exiting.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sleep } from '../support/harness.mjs';
import { runScaleDrill } from './drill.mjs';
import { startRedisCluster } from './infrastructure.mjs';
import { ensureScalePrograms } from './programs.mjs';

export { ensureScalePrograms, runScaleDrill, startRedisCluster };

/** A drill context whose checks and figures are kept; `cleanup()` runs the deferred steps in reverse, each bounded. */
export async function collectingContext() {
  const logDir = await mkdtemp(path.join(os.tmpdir(), 'drill-logs-scale-'));
  const cleanups = [];
  const started = Date.now();
  const context = {
    values: {},
    logDir,
    checks: [],
    figures: {},
    defer: (fn) => cleanups.push(fn),
    log: (...parts) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s]`, ...parts),
    async tempDir(label) {
      const dir = await mkdtemp(path.join(os.tmpdir(), `drill-${label}-`));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      return dir;
    },
    check: (label, ok, detail = '') => context.checks.push({ label, ok: Boolean(ok), detail: String(detail) }),
    figure: (key, value) => (context.figures[key] = value),
    async cleanup({ keepLogs = false } = {}) {
      for (const cleanup of cleanups.reverse()) {
        await Promise.race([Promise.resolve().then(cleanup), sleep(30_000, 'timeout', { ref: false })]).catch(() => undefined);
      }
      if (!keepLogs) await rm(logDir, { recursive: true, force: true });
    },
  };
  return context;
}
