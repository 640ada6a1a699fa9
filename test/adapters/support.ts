import { afterAll } from '@jest/globals';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readlinkSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonLogger, startAdapterServer } from '../../apps/adapters/common/src/index.js';
import type { AdapterDefinition, RunningAdapter } from '../../apps/adapters/common/src/index.js';
import { sourceAliases } from '../../scripts/source-aliases.mjs';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Route every scratch directory of in-process adapters of this test file under one fresh root (removed after). */
export function isolateScratchRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'adapter-test-scratch-'));
  process.env.SCRATCH_ROOT = root;
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

/** Serve an adapter in this process on a free loopback port. */
export function startInProcess(adapter: AdapterDefinition, maxRunSeconds = 60): Promise<RunningAdapter> {
  return startAdapterServer(adapter, {
    host: '127.0.0.1',
    port: 0,
    limits: { maxRunMs: maxRunSeconds * 1000, maxOutputBytes: 64 * 1024 * 1024 },
    maxRequestBytes: 32 * 1024 * 1024,
    logger: jsonLogger(adapter.name, 'silent'),
  });
}

/** Processes (pid and program name) whose working directory lies under `root`: programs an adapter started there. */
export function processesUnder(root: string): { pid: number; name: string }[] {
  const found: { pid: number; name: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      if (cwd.startsWith(root)) found.push({ pid: Number(entry), name: readFileSync(`/proc/${entry}/comm`, 'utf8').trim() });
    } catch {
      /* process gone or not ours */
    }
  }
  return found;
}

/** Poll until `check` returns true or `timeoutMs` passes. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, stepMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface AdapterProcess {
  child: ChildProcess;
  url: string;
  /** SIGKILL the adapter process and wait for it to exit. */
  kill(): Promise<void>;
}

/** Start `apps/adapters/<name>/src/main.ts` as its own Node process (TypeScript through jiti) and wait for /healthz. */
export async function startAdapterProcess(name: string, port: number, env: Record<string, string> = {}): Promise<AdapterProcess> {
  const child = spawn(
    process.execPath,
    [join(repoRoot, 'node_modules/jiti/lib/jiti-cli.mjs'), join(repoRoot, `apps/adapters/${name}/src/main.ts`)],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        // The adapter's imports of libs ('#observability/...') resolve to the sources, not dist/.
        JITI_ALIAS: JSON.stringify(sourceAliases()),
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const healthy = await waitUntil(async () => {
    if (child.exitCode !== null) return true;
    try {
      return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
    } catch {
      return false;
    }
  }, 20_000);
  if (!healthy || child.exitCode !== null) {
    child.kill('SIGKILL');
    throw new Error(`adapter ${name} did not start on port ${port}: ${stderr}`);
  }
  return {
    child,
    url: `http://127.0.0.1:${port}/mcp`,
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
