// A sandbox process may be handed runs to do after the one it does (HandlerSandboxProcess.runNext): the real sandbox host
// must then run them one after the other in the order handed, never begin a run after one that failed, and drop a run
// taken back before it began. The pool's own rules are specified against a stand-in in sandbox-pool.spec.ts; this is the host itself, built
// (dist/), started by the launcher as the executor starts it (HANDLER_SANDBOX=none here, the same host inside bubblewrap).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { McpBridge } from '@skill-registry/sdk';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HandlerLauncher, HandlerSandboxPool } from '#handler-sandbox/index.js';
import { handlerProcessLimits, sandboxPoolOptions, sandboxSettingsFrom } from '#handler-sandbox/sandbox-settings.js';

const bridge = { invoke: async () => ({}), isAvailable: async () => false, listTools: async () => [] } as unknown as McpBridge;
const CONTENT_HASH = 'sha256:' + 'c'.repeat(64);

/** A package whose handler waits `sleepMs`, then fails when asked to, else answers its pid and when it began and ended. */
async function writePackage(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, 'schema.ts'),
    `import { z } from '@skill-registry/sdk';
export const In = z.object({ n: z.number().int(), sleepMs: z.number().int().optional(), fail: z.boolean().optional() });
export const Out = z.object({ n: z.number().int(), pid: z.number().int(), began: z.number(), ended: z.number() });
`,
  );
  await writeFile(
    path.join(dir, 'handler.ts'),
    `import { SkillBase } from '@skill-registry/sdk';
import { In, Out } from './schema.js';
export class Handler extends SkillBase<typeof In, typeof Out> {
  static readonly inputSchema = In;
  static readonly outputSchema = Out;
  async execute(input: { n: number; sleepMs?: number; fail?: boolean }) {
    const began = Date.now();
    if (input.sleepMs) await new Promise((resolve) => setTimeout(resolve, input.sleepMs));
    if (input.fail) throw new Error('failed on purpose');
    return { n: input.n, pid: process.pid, began, ended: Date.now() };
  }
}
`,
  );
}

describe('the sandbox host, handed its next run while it runs one', () => {
  let root: string;
  let packageDir: string;
  let launcher: HandlerLauncher;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'sandbox-next-'));
    packageDir = path.join(root, 'package');
    await writePackage(packageDir);
    const settings = sandboxSettingsFrom({ HANDLER_SANDBOX: 'none' }, 1);
    launcher = new HandlerLauncher({
      isolation: 'none',
      sandboxRoot: path.join(root, 'sandbox'),
      maxFrameBytes: 1024 * 1024,
      limits: handlerProcessLimits(settings),
    });
  });
  afterAll(async () => {
    await launcher.close();
    await rm(root, { recursive: true, force: true });
  });

  const poolWith = (spawnAfterMs: number) =>
    new HandlerSandboxPool(
      { spawnSpec: (dir, hash) => launcher.spawnSpec(dir, hash) },
      {
        ...sandboxPoolOptions(sandboxSettingsFrom({ HANDLER_SANDBOX: 'none' }, 1)),
        spawnAfterMs,
      },
    );
  const run = (pool: HandlerSandboxPool, input: Record<string, unknown>) =>
    pool.run(
      {
        executionId: 'e',
        sessionId: null,
        branch: 'main',
        packagePath: packageDir,
        contentHash: CONTENT_HASH,
        skillName: 'next_run',
        inputSchemaRef: 'schema.In',
        outputSchemaRef: 'schema.Out',
        input,
      },
      { timeoutMs: 20_000, signal: new AbortController().signal, bridge, declaredTools: [] },
    );
  const output = (outcome: Awaited<ReturnType<typeof run>>) => {
    if (!outcome.ok) throw new Error(`the run failed: ${outcome.error.code} ${outcome.error.message}`);
    return outcome.output as { n: number; pid: number; began: number; ended: number };
  };
  const soon = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('runs the next run after the current one, in the same process', async () => {
    const pool = poolWith(60_000);
    try {
      const warm = output(await run(pool, { n: 0 }));
      const current = run(pool, { n: 1, sleepMs: 300 });
      await soon(100);
      const [first, second] = (await Promise.all([current, run(pool, { n: 2 })])).map(output);
      expect([first?.pid, second?.pid]).toEqual([warm.pid, warm.pid]);
      expect(second?.began).toBeGreaterThanOrEqual(first?.ended as number);
      expect(pool.size).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('runs several runs held behind the current one after it, in the order handed, in the same process', async () => {
    const pool = poolWith(60_000);
    try {
      const warm = output(await run(pool, { n: 0 }));
      const current = run(pool, { n: 1, sleepMs: 300 });
      await soon(100);
      const outcomes = (await Promise.all([current, ...[2, 3, 4].map((n) => run(pool, { n, sleepMs: 20 }))])).map(output);
      expect(outcomes.map((outcome) => outcome.pid)).toEqual(Array(4).fill(warm.pid));
      for (let index = 1; index < outcomes.length; index++) {
        expect(outcomes[index]?.n).toBe(index + 1);
        expect(outcomes[index]?.began).toBeGreaterThanOrEqual(outcomes[index - 1]?.ended as number);
      }
      expect(pool.size).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('after a failed run, the runs held behind it go to a fresh process and succeed there', async () => {
    const pool = poolWith(60_000);
    try {
      const warm = output(await run(pool, { n: 0 }));
      const failing = run(pool, { n: 1, sleepMs: 300, fail: true });
      await soon(100);
      const [failed, ...held] = await Promise.all([failing, run(pool, { n: 2 }), run(pool, { n: 3 })]);
      expect(failed).toMatchObject({ ok: false, error: { code: 'HANDLER_ERROR' } });
      for (const outcome of held) expect(output(outcome).pid).not.toBe(warm.pid);
    } finally {
      await pool.close();
    }
  });

  it('drops a next run taken back before it began; the run goes to another process, the current one runs on', async () => {
    const pool = poolWith(100);
    try {
      const warm = output(await run(pool, { n: 0 }));
      const long = run(pool, { n: 1, sleepMs: 3000 });
      await soon(100);
      const started = Date.now();
      const next = output(await run(pool, { n: 2, sleepMs: 1000 }));
      expect(Date.now() - started).toBeLessThan(2500);
      expect(next.pid).not.toBe(warm.pid);
      const first = output(await long);
      expect(first.pid).toBe(warm.pid);
      // Nor did the process run it after its long run: its next run (the last idle one is used first) begins at once,
      // not after the withdrawn run's second.
      const after = output(await run(pool, { n: 3 }));
      expect(after.pid).toBe(warm.pid);
      expect(after.began - first.ended).toBeLessThan(500);
    } finally {
      await pool.close();
    }
  });
});
