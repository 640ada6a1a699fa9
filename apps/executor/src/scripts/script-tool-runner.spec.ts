import { chown, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runContractOf, type StoredScriptTool } from '#contracts/index.js';
import type { ExecutableVersion, ExecutionRecord } from '#executions/index.js';
import { PackageCache } from '#package-store/index.js';
import { ScriptSandbox } from '#script-sandbox/index.js';
import { loadExecutorConfig } from '../config/executor-config.js';
import { createPackageCacheRoot } from './package-cache-root.js';
import { ScriptToolRunner } from './script-tool-runner.js';

function tool(name: string, script: StoredScriptTool['script'], notExecutableReason: string | null = null): StoredScriptTool {
  return {
    name,
    qualified_name: `demo__${name}`,
    description: name,
    input_schema: { type: 'object' },
    output_schema: null,
    read_only: true,
    destructive: false,
    idempotent: true,
    timeout_seconds: 5,
    retries: 0,
    search_aliases: [],
    next_tools: { on_success: [], on_failure: [] },
    annotations: {},
    examples: [],
    script,
    not_executable_reason: notExecutableReason,
  };
}

const version: ExecutableVersion = {
  name: 'demo',
  version: '1.0.0',
  domain: 'tools',
  tags: [],
  status: 'ACTIVE',
  timeoutSeconds: 10,
  retries: 0,
  idempotent: true,
  maxRetriesPerGate: 0,
  inputSchema: null,
  outputSchema: null,
  inputSchemaRef: '',
  outputSchemaRef: '',
  toolsRequired: [],
  format: 'agent-skills',
  tools: [tool('echo', { path: 'scripts/echo.py', interpreter: 'python3' }), tool('manual', null, 'needs a GUI')],
  workflows: [],
  contentHash: 'sha256:' + '0'.repeat(64),
};
const execution = { id: 'e1', input: {} } as ExecutionRecord;

/** A cache whose store has nothing: these cases must fail before any package is materialised. */
const emptyCache = new PackageCache(path.join(tmpdir(), 'unused-cache'), { read: async () => null, manifest: async () => null });

describe('script tools on an executor', () => {
  it('without bubblewrap and without the opt-out: script tools fail PRECONDITION_FAILED naming the package and SCRIPT_SANDBOX=none', async () => {
    const config = loadExecutorConfig({ PACKAGE_CACHE_DIR: tmpdir() });
    const runner = new ScriptToolRunner(
      new ScriptSandbox({ isolation: 'bubblewrap', bwrapPath: '/nonexistent/bwrap' }),
      emptyCache,
      config,
    );
    await runner.onModuleInit();
    expect(runner.status()).toMatchObject({ isolation: 'bubblewrap', available: false, reason: expect.stringContaining('bubblewrap') });

    const outcome = await runner.run(execution, version, runContractOf(version, 'echo')!, new AbortController().signal);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'PRECONDITION_FAILED' } });
    const message = outcome.ok ? '' : outcome.error.message;
    expect(message).toContain("Debian package 'bubblewrap'");
    expect(message).toContain('SCRIPT_SANDBOX=none');
  });

  it('a tool without a script fails PRECONDITION_FAILED with its not_executable_reason', async () => {
    const runner = new ScriptToolRunner(new ScriptSandbox({ isolation: 'none' }), emptyCache, loadExecutorConfig({}));
    const outcome = await runner.run(execution, version, runContractOf(version, 'manual')!, new AbortController().signal);
    expect(outcome).toEqual({
      ok: false,
      error: {
        code: 'PRECONDITION_FAILED',
        message: "Tool 'manual' of demo 1.0.0 cannot run here: needs a GUI",
        details: { tool: 'manual', not_executable_reason: 'needs a GUI' },
      },
    });
  });

  it('reads SCRIPT_SANDBOX through the executor configuration: bubblewrap by default, none as the opt-out, nothing else', () => {
    expect(loadExecutorConfig({}).SCRIPT_SANDBOX).toBe('bubblewrap');
    expect(loadExecutorConfig({ SCRIPT_SANDBOX: 'none' }).SCRIPT_SANDBOX).toBe('none');
    expect(() => loadExecutorConfig({ SCRIPT_SANDBOX: 'off' })).toThrow(/SCRIPT_SANDBOX.*'bubblewrap' or 'none'/);
  });

  it('creates the package cache directories it makes 0755 whatever the umask, and leaves existing ones alone', async () => {
    const parent = await mkdtemp(path.join(tmpdir(), 'cache-root-')); // 0700, as mkdtemp makes it
    const previous = process.umask(0o077);
    try {
      await createPackageCacheRoot(path.join(parent, 'skill-registry', 'packages'));
    } finally {
      process.umask(previous);
    }
    const mode = async (dir: string) => (await stat(dir)).mode & 0o777;
    expect(await mode(path.join(parent, 'skill-registry'))).toBe(0o755);
    expect(await mode(path.join(parent, 'skill-registry', 'packages'))).toBe(0o755);
    expect(await mode(parent)).toBe(0o700);
    await rm(parent, { recursive: true, force: true });
  });

  // Packages are verified against their hash once, then loaded from the cache: a cache another user can write to would
  // let them change a package after its check (the default is under the shared temporary directory).
  it('refuses a package cache directory another user made first, naming PACKAGE_CACHE_DIR', async () => {
    const parent = await mkdtemp(path.join(tmpdir(), 'cache-root-'));
    const planted = path.join(parent, 'skill-registry');
    await mkdir(planted, { mode: 0o755 });
    await chown(planted, 65534, 65534);
    try {
      await expect(createPackageCacheRoot(path.join(planted, 'packages'))).rejects.toThrow(/belongs to uid 65534.*set PACKAGE_CACHE_DIR/s);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});
