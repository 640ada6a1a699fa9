import type { RuntimeDeclaration } from '#contracts/index.js';
import { probeRuntimes } from './runtime-probe.js';

const runtime = (overrides: Partial<RuntimeDeclaration> & Pick<RuntimeDeclaration, 'type' | 'target'>): RuntimeDeclaration => ({
  name: overrides.target,
  package: null,
  optional: false,
  feature_level: null,
  hint: null,
  ...overrides,
});

describe('runtime probes (seed 004), as a script tool would find things', () => {
  it('finds programs of the sandbox and Python modules without importing them; says missing or degraded for the rest', async () => {
    process.env.SEED004_PROBE_SECRET = 'set in the host process';
    try {
      const probed = await probeRuntimes([
        runtime({ type: 'binary', target: 'bash' }),
        runtime({ type: 'binary', target: 'no-such-program-here', optional: true }),
        runtime({ type: 'python_package', target: 'json' }),
        runtime({ type: 'python_package', target: 'xml.etree' }),
        runtime({ type: 'python_package', target: 'no_such_module_here' }),
        runtime({ type: 'env_var', target: 'SKILL_NAME' }),
        // Set in this process, but a script never sees the host's environment: not found, and nothing about it leaks.
        runtime({ type: 'env_var', target: 'SEED004_PROBE_SECRET', optional: true }),
      ]);
      expect(probed.map((found) => [found.target, found.state])).toEqual([
        ['bash', 'available'],
        ['no-such-program-here', 'degraded'],
        ['json', 'available'],
        ['xml.etree', 'available'],
        ['no_such_module_here', 'missing'],
        ['SKILL_NAME', 'available'],
        ['SEED004_PROBE_SECRET', 'degraded'],
      ]);
    } finally {
      delete process.env.SEED004_PROBE_SECRET;
    }
  });
});
