import { describe, expect, it } from '@jest/globals';
import type { McpBridge } from '@skill-registry/sdk';
import { runContractOf } from '#contracts/index.js';
import type { ExecutableVersion, ExecutionEvent, ExecutionEventLog, ExecutionRecord } from '#executions/index.js';
import type { HandlerSandboxPool } from '#handler-sandbox/index.js';
import { PackageUnavailable, type PackageCache } from '#package-store/index.js';
import { HookRefused, type HookRunner } from '../hooks/hook-runner.js';
import type { HandlerOutcome, ScriptToolRunner } from '../scripts/script-tool-runner.js';
import type { TwinGateway } from '../twin/twin-gateway.js';
import { AttemptStart } from './attempt-start.js';
import type { ExecutionEventPublisher } from './execution-event-publisher.js';
import { HandlerAttempt } from './handler-attempt.js';

const OUTPUT_SCHEMA = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };

function version(overrides: Partial<ExecutableVersion> = {}): ExecutableVersion {
  return {
    name: 'demo',
    version: '1.0.0',
    status: 'ACTIVE',
    timeoutSeconds: 10,
    retries: 0,
    idempotent: true,
    maxRetriesPerGate: 0,
    inputSchema: { type: 'object' },
    outputSchema: OUTPUT_SCHEMA,
    inputSchemaRef: 'schema.In',
    outputSchemaRef: 'schema.Out',
    toolsRequired: [],
    format: 'typescript',
    tools: [],
    contentHash: `sha256:${'1'.repeat(64)}`,
    ...overrides,
  };
}

const execution = {
  id: 'e-1',
  attempts: 1,
  input: { x: 1 },
  sessionId: null,
  branch: 'main',
  skillName: 'demo',
} as unknown as ExecutionRecord;

/** HandlerAttempt over fakes: the sandbox answers `outputs` in turn; what reached each fake is recorded. */
function attemptWith(options: {
  outputs?: HandlerOutcome[];
  unavailable?: string[];
  disabled?: string[];
  refuseBefore?: boolean;
  packageMissing?: boolean;
}) {
  const seen = { sandboxRuns: [] as number[], scriptRuns: 0, events: [] as ExecutionEvent[], afterExecute: [] as unknown[] };
  const outputs = options.outputs ?? [{ ok: true, output: { n: 1 } }];
  const hooks = {
    beforeExecute: async () => {
      if (options.refuseBefore) throw new HookRefused({ code: 'PRECONDITION_FAILED', message: 'refused by policy', details: {} });
    },
    afterExecute: async (context: { output: unknown }) => void seen.afterExecute.push(context.output),
  } as unknown as HookRunner;
  const bridge = {
    invoke: async () => ({}),
    isAvailable: async (toolId: string) => !(options.unavailable ?? []).includes(toolId) && !(options.disabled ?? []).includes(toolId),
    isDisabled: (toolId: string) => (options.disabled ?? []).includes(toolId),
    listTools: async () => [],
  } as McpBridge;
  const sandbox = {
    run: async (_request: unknown, run: { timeoutMs: number }) => {
      seen.sandboxRuns.push(run.timeoutMs);
      return outputs[Math.min(seen.sandboxRuns.length - 1, outputs.length - 1)];
    },
  } as unknown as HandlerSandboxPool;
  const scripts = {
    run: async () => {
      seen.scriptRuns++;
      return outputs[0];
    },
  } as unknown as ScriptToolRunner;
  const packages = {
    directory: async (hash: string) => {
      if (options.packageMissing) throw new PackageUnavailable(hash, 'not in the store');
      return '/packages/demo';
    },
  } as unknown as PackageCache;
  const twin = { handlerFor: () => ({}) } as unknown as TwinGateway;
  const events = {
    publish: async (_id: string, event: ExecutionEvent) => void seen.events.push(event),
    flush: async () => undefined,
  } as unknown as ExecutionEventPublisher;
  const log = { logWriter: () => async () => undefined } as unknown as ExecutionEventLog;
  const attempt = new HandlerAttempt(hooks, bridge, sandbox, scripts, packages, twin, events, log);
  const run = (of: ExecutableVersion) =>
    attempt.run({
      execution,
      version: of,
      contract: runContractOf(of, of.format === 'agent-skills' ? 'echo' : null)!,
      start: AttemptStart.written(execution),
      signal: new AbortController().signal,
      traceParent: null,
    });
  return { run, seen };
}

describe('HandlerAttempt', () => {
  it('runs the handler in the sandbox with the timeout, checks its output and hands it to the after hooks', async () => {
    const { run, seen } = attemptWith({});
    expect(await run(version())).toEqual({ ok: true, output: { n: 1 } });
    expect(seen.sandboxRuns).toEqual([10_000]);
    expect(seen.afterExecute).toEqual([{ n: 1 }]);
  });

  it('refuses output that breaks the stored schema: OUTPUT_INVALID, and the after hooks never see it', async () => {
    const { run, seen } = attemptWith({ outputs: [{ ok: true, output: { n: 'one' } }] });
    expect(await run(version())).toMatchObject({ ok: false, error: { code: 'OUTPUT_INVALID', details: { errors: [{ pointer: '/n' }] } } });
    expect(seen.afterExecute).toEqual([]);
    expect(seen.events).toEqual([]);
  });

  it('asks an idempotent handler again when its gate allows, reporting each refusal', async () => {
    const { run, seen } = attemptWith({
      outputs: [
        { ok: true, output: { n: 'one' } },
        { ok: true, output: { n: 2 } },
      ],
    });
    expect(await run(version({ maxRetriesPerGate: 2 }))).toEqual({ ok: true, output: { n: 2 } });
    expect(seen.sandboxRuns).toHaveLength(2);
    expect(seen.events).toMatchObject([{ type: 'output_invalid', attempt: 1, try: 1, reask: true }]);
  });

  it('never asks a non-idempotent handler again, whatever its gate says', async () => {
    const { run, seen } = attemptWith({
      outputs: [
        { ok: true, output: { n: 'one' } },
        { ok: true, output: { n: 2 } },
      ],
    });
    expect(await run(version({ idempotent: false, maxRetriesPerGate: 2 }))).toMatchObject({ ok: false, error: { code: 'OUTPUT_INVALID' } });
    expect(seen.sandboxRuns).toHaveLength(1);
  });

  it('fails PRECONDITION_FAILED before running anything when a required tool is missing, but runs with a disabled one', async () => {
    const toolsRequired = [{ tool_id: 'spice.simulate', capability: 'circuit_simulation', required: true }];
    const missing = attemptWith({ unavailable: ['spice.simulate'] });
    expect(await missing.run(version({ toolsRequired }))).toMatchObject({
      ok: false,
      error: { code: 'PRECONDITION_FAILED', details: { tools: ['spice.simulate'] } },
    });
    expect(missing.seen.sandboxRuns).toEqual([]);

    const disabled = attemptWith({ disabled: ['spice.simulate'] });
    expect(await disabled.run(version({ toolsRequired }))).toEqual({ ok: true, output: { n: 1 } });
  });

  it('turns a before hook refusal and a package missing from the store into their errors, never a throw', async () => {
    expect(await attemptWith({ refuseBefore: true }).run(version())).toEqual({
      ok: false,
      error: { code: 'PRECONDITION_FAILED', message: 'refused by policy', details: {} },
    });
    const missingPackage = attemptWith({ packageMissing: true });
    expect(await missingPackage.run(version())).toMatchObject({ ok: false, error: { code: 'PRECONDITION_FAILED' } });
    expect(missingPackage.seen.sandboxRuns).toEqual([]);
  });

  it('runs an Agent Skills version through the script tool runner, not the sandbox pool', async () => {
    const tool = {
      name: 'echo',
      qualified_name: 'demo__echo',
      description: 'echo',
      input_schema: { type: 'object' },
      output_schema: OUTPUT_SCHEMA,
      read_only: true,
      destructive: false,
      idempotent: true,
      timeout_seconds: 5,
      retries: 0,
      search_aliases: [],
      next_tools: { on_success: [], on_failure: [] },
      annotations: {},
      examples: [],
      script: { path: 'scripts/echo.py', interpreter: 'python3' as const },
      not_executable_reason: null,
    };
    const { run, seen } = attemptWith({});
    expect(await run(version({ format: 'agent-skills', tools: [tool], outputSchema: null }))).toEqual({ ok: true, output: { n: 1 } });
    expect(seen.scriptRuns).toBe(1);
    expect(seen.sandboxRuns).toEqual([]);
  });
});
