import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SandboxPool } from './sandbox-pool.js';
import type { McpBridge } from '@skill-registry/sdk';

/**
 * A stand-in sandbox thread speaking the pool's protocol: answers each run with its input after
 * `input.ms` milliseconds (busy for that long), asks to be retired when `input.retire` is set, and adds
 * its thread id to the output when `input.whoami` is set.
 */
const THREAD_SOURCE = `
import { parentPort, threadId } from 'node:worker_threads';
parentPort.on('message', (message) => {
  if (message.type !== 'run') return;
  setTimeout(() => parentPort.postMessage({ type: 'result', runId: message.runId, outcome: 'ok', output: message.input.whoami ? { ...message.input, threadId } : message.input, retire: message.input.retire === true }), message.input.ms ?? 0);
});
parentPort.postMessage({ type: 'ready' });
`;

const bridge = { invoke: async () => ({}), isAvailable: async () => false, listTools: async () => [] } as unknown as McpBridge;

describe('SandboxPool', () => {
  let dir: string;
  let entry: URL;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandbox-pool-'));
    await writeFile(join(dir, 'thread.mjs'), THREAD_SOURCE);
    entry = pathToFileURL(join(dir, 'thread.mjs'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  const run = (pool: SandboxPool, input: Record<string, unknown>) =>
    pool.run(
      {
        executionId: 'e',
        sessionId: null,
        branch: 'main',
        packagePath: '/nowhere',
        contentHash: 'h',
        skillName: 's',
        inputSchemaRef: 'schema.In',
        outputSchemaRef: 'schema.Out',
        input,
      },
      { timeoutMs: 10_000, signal: new AbortController().signal, bridge },
    );

  it('short runs share the threads there are instead of starting one thread per concurrent run', async () => {
    const pool = new SandboxPool(entry, { maxThreads: 8, cancelGraceMs: 100, spawnAfterMs: 60_000 });
    try {
      await pool.warm(1);
      const outcomes = await Promise.all(Array.from({ length: 24 }, (_, index) => run(pool, { index })));
      expect(outcomes.map((outcome) => (outcome.ok ? outcome.output.index : null))).toEqual(Array.from({ length: 24 }, (_, i) => i));
      expect(pool.size).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('while runs keep waiting behind long ones, it starts more threads, up to maxThreads', async () => {
    const pool = new SandboxPool(entry, { maxThreads: 3, cancelGraceMs: 100, spawnAfterMs: 10 });
    try {
      await pool.warm(1);
      const outcomes = await Promise.all(Array.from({ length: 6 }, (_, index) => run(pool, { index, ms: 300 })));
      expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
      expect(pool.size).toBe(3);
    } finally {
      await pool.close();
    }
  });

  it('a thread that asks to be retired first serves the runs already waiting (no compiler reload per new package)', async () => {
    const pool = new SandboxPool(entry, { maxThreads: 1, cancelGraceMs: 100 });
    try {
      await pool.warm(1);
      const outcomes = await Promise.all([
        run(pool, { whoami: true, retire: true, ms: 50 }),
        run(pool, { whoami: true, retire: true }),
        run(pool, { whoami: true }),
      ]);
      const threads = outcomes.map((outcome) => (outcome.ok ? outcome.output.threadId : null));
      expect(new Set(threads).size).toBe(1);
      expect(threads[0]).toEqual(expect.any(Number));
      // No run waits any more: it is retired now.
      expect(pool.size).toBe(0);
    } finally {
      await pool.close();
    }
  });

  it('does not grow while every run waits less than spawnAfterMs, however long some run has been waiting', async () => {
    // One thread, three runs of 20 ms at a time for about a second: a run is always waiting, none for long.
    const pool = new SandboxPool(entry, { maxThreads: 4, cancelGraceMs: 100, spawnAfterMs: 250 });
    try {
      await pool.warm(1);
      const until = Date.now() + 1000;
      const loop = async () => {
        while (Date.now() < until) expect(await run(pool, { ms: 20 })).toMatchObject({ ok: true });
      };
      await Promise.all([loop(), loop(), loop()]);
      expect(pool.size).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('replaces a thread that asks to be retired (it loaded the compiler) once its run is done', async () => {
    const pool = new SandboxPool(entry, { maxThreads: 2, cancelGraceMs: 100 });
    try {
      await pool.warm(1);
      expect(await run(pool, { retire: true })).toEqual({ ok: true, output: { retire: true } });
      expect(pool.size).toBe(0);
      expect(await run(pool, { next: true })).toEqual({ ok: true, output: { next: true } });
      expect(pool.size).toBe(1);
    } finally {
      await pool.close();
    }
  });
});
