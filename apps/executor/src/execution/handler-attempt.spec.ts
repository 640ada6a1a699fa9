import { describe, expect, it } from '@jest/globals';
import type { McpBridge } from '@skill-registry/sdk';
import { runContractOf } from '#contracts/index.js';
import type { ExecutableVersion, ExecutionEvent, ExecutionEventLog, ExecutionRecord } from '#executions/index.js';
import type { HandlerSandboxPool } from '#handler-sandbox/index.js';
import { PackageUnavailable, type PackageCache } from '#package-store/index.js';
import { type AttemptHooks, HookRefused } from '../hooks/attempt-hooks.js';
import type { HandlerOutcome, ScriptToolRunner } from '../scripts/script-tool-runner.js';
import { WorkflowRunner } from '../scripts/workflow-runner.js';
import type { TwinGateway } from '../twin/twin-gateway.js';
import { AttemptStart } from './attempt-start.js';
import type { ExecutionEventPublisher } from './execution-event-publisher.js';
import { HandlerAttempt } from './handler-attempt.js';

const OUTPUT_SCHEMA = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };

function version(overrides: Partial<ExecutableVersion> = {}): ExecutableVersion {
  return {
    name: 'demo',
    version: '1.0.0',
    domain: 'simulation',
    tags: [],
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
    workflows: [],
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
  refuseOnTool?: boolean;
  packageMissing?: boolean;
}) {
  const seen = {
    sandboxRuns: [] as number[],
    scriptRuns: 0,
    events: [] as ExecutionEvent[],
    postStep: [] as unknown[],
    preDelivery: [] as unknown[],
    onTool: [] as string[],
  };
  const outputs = options.outputs ?? [{ ok: true, output: { n: 1 } }];
  const hooks = {
    empty: false,
    preStep: async () => {
      if (options.refuseBefore) throw new HookRefused({ code: 'HOOK_DENIED', message: 'refused by policy', details: { hook: 'policy' } });
    },
    postStep: async (output: unknown) => void seen.postStep.push(output),
    preDelivery: async (output: unknown) => void seen.preDelivery.push(output),
    onTool: async (call: { toolId: string }) => {
      seen.onTool.push(call.toolId);
      if (options.refuseOnTool)
        throw new HookRefused({ code: 'HOOK_FAILED', message: "Hook 'audit' (on_tool) failed", details: { hook: 'audit' } });
    },
  } as unknown as AttemptHooks;
  const bridge = {
    invoke: async () => ({}),
    isAvailable: async (toolId: string) => !(options.unavailable ?? []).includes(toolId) && !(options.disabled ?? []).includes(toolId),
    isDisabled: (toolId: string) => (options.disabled ?? []).includes(toolId),
    listTools: async () => [],
  } as McpBridge;
  const sandbox = {
    run: async (_request: unknown, run: { timeoutMs: number; signal: AbortSignal; bridge: McpBridge }) => {
      seen.sandboxRuns.push(run.timeoutMs);
      if (options.refuseOnTool) {
        // A handler that calls a tool, then waits until it is stopped.
        await run.bridge.invoke('spice.simulate', {});
        await new Promise((resolve) => run.signal.addEventListener('abort', resolve, { once: true }));
        return { ok: false, error: { code: 'CANCELLED', message: 'stopped', details: {} } };
      }
      return outputs[Math.min(seen.sandboxRuns.length - 1, outputs.length - 1)];
    },
  } as unknown as HandlerSandboxPool;
  const scripts = {
    run: async () => {
      seen.scriptRuns++;
      return outputs[0];
    },
    runTool: async () => {
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
  const attempt = new HandlerAttempt(bridge, sandbox, scripts, new WorkflowRunner(scripts), packages, twin, events, log);
  const run = (of: ExecutableVersion, tool = 'echo') =>
    attempt.run({
      execution,
      version: of,
      contract: runContractOf(of, of.format === 'agent-skills' ? tool : null)!,
      start: AttemptStart.written(execution),
      hooks,
      signal: new AbortController().signal,
      traceParent: null,
    });
  return { run, seen };
}

describe('HandlerAttempt', () => {
  it('runs the handler in the sandbox with the timeout, checks its output and hands it to the post_step and pre_delivery hooks', async () => {
    const { run, seen } = attemptWith({});
    expect(await run(version())).toEqual({ ok: true, output: { n: 1 } });
    expect(seen.sandboxRuns).toEqual([10_000]);
    expect(seen.postStep).toEqual([{ n: 1 }]);
    expect(seen.preDelivery).toEqual([{ n: 1 }]);
  });

  it('refuses output that breaks the stored schema: OUTPUT_INVALID; post_step saw it (before validation), pre_delivery never does', async () => {
    const { run, seen } = attemptWith({ outputs: [{ ok: true, output: { n: 'one' } }] });
    expect(await run(version())).toMatchObject({ ok: false, error: { code: 'OUTPUT_INVALID', details: { errors: [{ pointer: '/n' }] } } });
    expect(seen.postStep).toEqual([{ n: 'one' }]);
    expect(seen.preDelivery).toEqual([]);
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
    expect(seen.postStep).toEqual([{ n: 'one' }, { n: 2 }]);
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

  it('turns a pre_step hook refusal and a package missing from the store into their errors, never a throw', async () => {
    const refused = attemptWith({ refuseBefore: true });
    expect(await refused.run(version())).toEqual({
      ok: false,
      error: { code: 'HOOK_DENIED', message: 'refused by policy', details: { hook: 'policy' } },
    });
    expect(refused.seen.sandboxRuns).toEqual([]);
    const missingPackage = attemptWith({ packageMissing: true });
    expect(await missingPackage.run(version())).toMatchObject({ ok: false, error: { code: 'PRECONDITION_FAILED' } });
    expect(missingPackage.seen.sandboxRuns).toEqual([]);
  });

  it('stops the handler when an on_tool hook refuses, and ends the attempt with that hook error', async () => {
    const toolsRequired = [{ tool_id: 'spice.simulate', capability: 'circuit_simulation', required: true }];
    const { run, seen } = attemptWith({ refuseOnTool: true });
    expect(await run(version({ toolsRequired }))).toEqual({
      ok: false,
      error: { code: 'HOOK_FAILED', message: "Hook 'audit' (on_tool) failed", details: { hook: 'audit' } },
    });
    expect(seen.onTool).toEqual(['spice.simulate']);
    expect(seen.events.map((event) => event.type)).toEqual(['tool_invoked', 'tool_completed']);
  });

  it('runs an Agent Skills version through the script tool runner, not the sandbox pool', async () => {
    const { run, seen } = attemptWith({});
    expect(await run(version({ format: 'agent-skills', tools: [ECHO_TOOL], outputSchema: null }))).toEqual({ ok: true, output: { n: 1 } });
    expect(seen.scriptRuns).toBe(1);
    expect(seen.sandboxRuns).toEqual([]);
  });

  it("runs a workflow through the workflow runner, its steps' events on the execution's stream", async () => {
    const workflow = {
      name: 'twice',
      qualified_name: 'demo__twice',
      description: 'echo twice',
      input_schema: { type: 'object' },
      steps: [
        { id: 'a', tool: 'echo', args: {} },
        { id: 'b', tool: 'echo', args: { n: '{{steps.a.output.n}}' } },
      ],
      timeout_seconds: 10,
      idempotent: true,
      retries: 0,
      not_executable_reason: null,
    };
    const { run, seen } = attemptWith({});
    const demo = version({ format: 'agent-skills', tools: [ECHO_TOOL], workflows: [workflow], outputSchema: null });
    expect(await run(demo, 'twice')).toEqual({ ok: true, output: { output: { n: 1 }, steps: { a: { n: 1 }, b: { n: 1 } } } });
    expect(seen.scriptRuns).toBe(2);
    expect(seen.events.map((event) => event.type)).toEqual(['step_started', 'step_completed', 'step_started', 'step_completed']);
  });
});

const ECHO_TOOL = {
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
