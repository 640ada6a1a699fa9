import { describe, expect, it } from '@jest/globals';
import type { McpBridge } from '@skill-registry/sdk';
import { chmod, chown, mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HandlerLauncher } from './handler-launcher.js';
import { HandlerSandboxPool } from './sandbox-pool.js';
import { handlerProcessLimits, sandboxPoolOptions, sandboxSettingsFrom } from './sandbox-settings.js';

const bridge = { invoke: async () => ({}), isAvailable: async () => false, listTools: async () => [] } as unknown as McpBridge;

/** One run of a package that is nowhere: enough to see whether the pool can start a process at all. */
function runOnce(pool: HandlerSandboxPool) {
  return pool.run(
    {
      executionId: 'e',
      sessionId: null,
      branch: 'main',
      packagePath: '/nowhere',
      contentHash: 'sha256:' + 'a'.repeat(64),
      skillName: 's',
      inputSchemaRef: 'schema.In',
      outputSchemaRef: 'schema.Out',
      input: {},
    },
    { timeoutMs: 1000, signal: new AbortController().signal, bridge, declaredTools: [] },
  );
}

describe('HandlerLauncher', () => {
  it('without bubblewrap and without the opt-out: handlers fail PRECONDITION_FAILED naming the Debian package and HANDLER_SANDBOX=none', async () => {
    const settings = sandboxSettingsFrom({}, 1);
    const launcher = new HandlerLauncher({
      isolation: 'bubblewrap',
      bwrapPath: '/nonexistent/bwrap',
      maxFrameBytes: 1024 * 1024,
      limits: handlerProcessLimits(settings),
    });
    const pool = new HandlerSandboxPool(launcher, sandboxPoolOptions(settings));
    try {
      const outcome = await runOnce(pool);
      expect(outcome).toMatchObject({ ok: false, error: { code: 'PRECONDITION_FAILED' } });
      const message = outcome.ok ? '' : outcome.error.message;
      expect(message).toContain("Debian package 'bubblewrap'");
      expect(message).toContain('HANDLER_SANDBOX=none');
      expect(pool.size).toBe(0);
    } finally {
      await pool.close();
    }
  });

  // The staged runtime and the precompiled JavaScript are kept under the sandbox root across restarts, by default under
  // the shared temporary directory: a user who made it first could have planted code that a sandbox would load in place
  // of the stored bytes. The sandboxes refuse such a root, with or without bubblewrap.
  it.each([
    ['belongs to another user', (dir: string) => chown(dir, 65534, 65534), /belongs to uid 65534/],
    ['may be written to by others', (dir: string) => chmod(dir, 0o777), /other users may write to it \(mode 0777\)/],
  ])('a sandbox root that %s: handlers fail PRECONDITION_FAILED naming it, and no process starts', async (_, plant, reason) => {
    const root = await mkdtemp(path.join(tmpdir(), 'launcher-root-'));
    await plant(root);
    const settings = sandboxSettingsFrom({ HANDLER_SANDBOX: 'none' }, 1);
    const launcher = new HandlerLauncher({
      isolation: 'none',
      maxFrameBytes: 1024 * 1024,
      limits: handlerProcessLimits(settings),
      sandboxRoot: root,
    });
    const pool = new HandlerSandboxPool(launcher, sandboxPoolOptions(settings));
    try {
      const outcome = await runOnce(pool);
      expect(outcome).toMatchObject({ ok: false, error: { code: 'PRECONDITION_FAILED' } });
      const message = outcome.ok ? '' : outcome.error.message;
      expect(message).toContain(`${await realpath(root)} is not safe to keep code in`);
      expect(message).toMatch(reason);
      expect(message).toContain('TMPDIR');
      expect(pool.size).toBe(0);
      expect(await readdir(root)).toEqual([]); // nothing staged into it
    } finally {
      await pool.close();
      await rm(root, { recursive: true, force: true });
    }
  });

  it('reads HANDLER_SANDBOX: bubblewrap by default, none as the opt-out, nothing else', () => {
    expect(sandboxSettingsFrom({}, 1).HANDLER_SANDBOX).toBe('bubblewrap');
    expect(sandboxSettingsFrom({ HANDLER_SANDBOX: 'none' }, 1).HANDLER_SANDBOX).toBe('none');
    expect(() => sandboxSettingsFrom({ HANDLER_SANDBOX: 'off' }, 1)).toThrow(/HANDLER_SANDBOX must be 'bubblewrap' or 'none'/);
  });
});
