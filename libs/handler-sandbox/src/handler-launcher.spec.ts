import { describe, expect, it } from '@jest/globals';
import type { McpBridge } from '@skill-registry/sdk';
import { HandlerLauncher } from './handler-launcher.js';
import { HandlerSandboxPool } from './sandbox-pool.js';
import { handlerProcessLimits, sandboxPoolOptions, sandboxSettingsFrom } from './sandbox-settings.js';

const bridge = { invoke: async () => ({}), isAvailable: async () => false, listTools: async () => [] } as unknown as McpBridge;

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
      const outcome = await pool.run(
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
      expect(outcome).toMatchObject({ ok: false, error: { code: 'PRECONDITION_FAILED' } });
      const message = outcome.ok ? '' : outcome.error.message;
      expect(message).toContain("Debian package 'bubblewrap'");
      expect(message).toContain('HANDLER_SANDBOX=none');
      expect(pool.size).toBe(0);
    } finally {
      await pool.close();
    }
  });

  it('reads HANDLER_SANDBOX: bubblewrap by default, none as the opt-out, nothing else', () => {
    expect(sandboxSettingsFrom({}, 1).HANDLER_SANDBOX).toBe('bubblewrap');
    expect(sandboxSettingsFrom({ HANDLER_SANDBOX: 'none' }, 1).HANDLER_SANDBOX).toBe('none');
    expect(() => sandboxSettingsFrom({ HANDLER_SANDBOX: 'off' }, 1)).toThrow(/HANDLER_SANDBOX must be 'bubblewrap' or 'none'/);
  });
});
