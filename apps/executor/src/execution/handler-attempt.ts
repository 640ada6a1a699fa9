import { Inject, Injectable, Logger } from '@nestjs/common';
import type { McpBridge } from '@skill-registry/sdk';
import { JsonSchemaValidator, type RunContract } from '#contracts/index.js';
import { ExecutionEventLog, type ExecutableVersion, type ExecutionEvent, type ExecutionRecord } from '#executions/index.js';
import { HandlerSandboxPool } from '#handler-sandbox/index.js';
import { ExecutionBridgeView, missingTools, silentLogger, type ToolCallEvent } from '#mcp-bridge/index.js';
import { PackageCache, PackageUnavailable } from '#package-store/index.js';
import { type AttemptHooks, HookRefused } from '../hooks/attempt-hooks.js';
import { ScriptToolRunner, type HandlerOutcome } from '../scripts/script-tool-runner.js';
import { WorkflowRunner } from '../scripts/workflow-runner.js';
import { TwinGateway } from '../twin/twin-gateway.js';
import type { AttemptStart } from './attempt-start.js';
import { ExecutionEventPublisher } from './execution-event-publisher.js';
import { throughOutputGate } from './output-gate.js';

export const TOOL_BRIDGE = Symbol('TOOL_BRIDGE');

/** One attempt as the runner hands it over: the execution, its version and contract, and how it is held. */
export interface AttemptRun {
  execution: ExecutionRecord;
  version: ExecutableVersion;
  /** What it runs under (the version's own contract, or its tool's). */
  contract: RunContract;
  start: AttemptStart;
  /** The hooks around it, taken once for the attempt. */
  hooks: AttemptHooks;
  signal: AbortSignal;
  /** The W3C traceparent of the attempt's span, for the tool calls. */
  traceParent: string | null;
}

/**
 * What one attempt runs, once its execution is held: the hooks around it, the required tools, the
 * handler itself (the one point where the package formats differ) and the check of its output against
 * the stored schema. Everything that goes wrong becomes an outcome with a stable code, never a throw.
 */
@Injectable()
export class HandlerAttempt {
  private readonly logger = new Logger(HandlerAttempt.name);
  private readonly validator = new JsonSchemaValidator();

  constructor(
    @Inject(TOOL_BRIDGE) private readonly bridge: McpBridge,
    private readonly sandbox: HandlerSandboxPool,
    private readonly scripts: ScriptToolRunner,
    private readonly workflows: WorkflowRunner,
    private readonly packages: PackageCache,
    private readonly twin: TwinGateway,
    private readonly events: ExecutionEventPublisher,
    private readonly log: ExecutionEventLog,
  ) {}

  /**
   * Preconditions, hooks, the handler (a script tool or a sandboxed TypeScript handler), output checks: pre_step
   * hooks first, post_step after each return of the handler (before its output is checked), pre_delivery once the
   * output passed; a refusal or a fail-closed failure of any of them ends the attempt (HOOK_DENIED, HOOK_FAILED).
   */
  async run(attempt: AttemptRun): Promise<HandlerOutcome> {
    const { execution, version, contract, signal, hooks } = attempt;
    try {
      await hooks.preStep();
      const missing = await missingTools(this.bridge, version.toolsRequired);
      if (missing.length > 0) {
        return {
          ok: false,
          error: {
            code: 'PRECONDITION_FAILED',
            message: `Required tools are not available: ${missing.join(', ')}`,
            details: { tools: missing },
          },
        };
      }
      const outcome = await throughOutputGate(
        // The one point where the formats differ: what runs as the handler; then the post_step hooks see what it returned.
        async (timeoutMs) => {
          const returned = await this.runOnce(attempt, timeoutMs);
          if (returned.ok) await hooks.postStep(returned.output);
          return returned;
        },
        // The one output check (the input's is the registry's, before the execution exists): the stored JSON Schema
        // agents rely on, here outside the sandbox, since nothing the handler's process says about itself counts.
        // Keyed by tool too: the tools of one Agent Skills package share its content hash.
        (output) =>
          contract.outputSchema
            ? this.validator.validate(contract.outputSchema, output, `${version.contentHash}:${contract.tool?.name ?? ''}:output`)
            : [],
        (rejection) =>
          void this.events.publish(execution.id, {
            type: 'output_invalid',
            at: new Date().toISOString(),
            attempt: execution.attempts,
            ...rejection,
          }),
        {
          // Seed 001 §2.3: a gate asks again only where running the handler twice is safe.
          maxTries: 1 + (contract.idempotent ? contract.maxRetriesPerGate : 0),
          budgetMs: contract.timeoutSeconds * 1000,
          signal,
        },
      );
      if (!outcome.ok) return outcome;
      await hooks.preDelivery(outcome.output);
      return outcome;
    } catch (error) {
      if (error instanceof HookRefused) return { ok: false, error: error.error };
      if (error instanceof PackageUnavailable)
        return { ok: false, error: { code: 'PRECONDITION_FAILED', message: error.message, details: {} } };
      return { ok: false, error: { code: 'HANDLER_ERROR', message: (error as Error).message, details: {} } };
    }
  }

  /** What runs as the handler: a TypeScript handler, a script tool, or a workflow of the package's script tools. */
  private runOnce(attempt: AttemptRun, timeoutMs: number): Promise<HandlerOutcome> {
    const { execution, version, contract, signal } = attempt;
    if (version.format !== 'agent-skills') return this.runHandler(attempt, timeoutMs);
    const { workflow } = contract;
    if (workflow === null) return this.scripts.run(execution, version, contract, signal);
    // Its steps' events go on the execution's stream, after whatever is held (its 'started').
    return this.workflows.run(
      execution,
      version,
      { ...contract, workflow },
      signal,
      (event) => void this.events.publish(execution.id, event),
    );
  }

  /**
   * A TypeScript skill's handler, in a sandbox process of its package. Its tool calls run the on_tool hooks (beside
   * the handler, which they do not hold up); a fail-closed one that fails stops the handler, and the attempt ends
   * HOOK_FAILED once the hooks of every call made so far have run.
   */
  private async runHandler(attempt: AttemptRun, timeoutMs: number): Promise<HandlerOutcome> {
    const { execution, version, start, hooks, traceParent } = attempt;
    const onTool = new OnToolHooks(hooks, attempt.signal);
    const signal = onTool.signal;
    // The bridge library's per-execution view reports every tool call; here they become execution events (and on_tool hooks).
    const bridge = new ExecutionBridgeView(
      this.bridge,
      (call) => {
        void this.events.publish(execution.id, toolEventOf(call));
        if (call.type === 'tool_completed') onTool.called(call);
      },
      { skillName: version.name, traceParent },
      silentLogger,
    );
    // Its log lines become `log` events too (bounded per execution), for SSE streams and MCP clients.
    const writeLog = this.log.logWriter(execution.id);
    // Only the bytes the registry stored run: the package comes from the store, verified, never from package_path.
    const packagePath = await this.packages.directory(version.contentHash);
    const returned = await this.sandbox.run(
      {
        executionId: execution.id,
        sessionId: execution.sessionId,
        branch: execution.branch,
        packagePath,
        contentHash: version.contentHash,
        skillName: version.name,
        inputSchemaRef: version.inputSchemaRef,
        outputSchemaRef: version.outputSchemaRef,
        input: execution.input,
      },
      {
        timeoutMs,
        signal,
        bridge,
        // Seed 000: a skill calls only the tools it declares.
        declaredTools: version.toolsRequired.map((tool) => tool.tool_id),
        onUndeclaredTool: (toolId) =>
          void this.events.publish(execution.id, {
            type: 'tool_completed',
            at: new Date().toISOString(),
            tool_id: toolId,
            duration_ms: 0,
            ok: false,
            error: { code: 'PRECONDITION_FAILED', message: `Tool '${toolId}' is not declared in tools_required` },
          }),
        twin: this.twin.handlerFor({
          executionId: execution.id,
          branch: execution.branch,
          emit: (event) => void this.events.publish(execution.id, event),
        }),
        // What the handler does through the channel may leave traces (tool effects, twin revisions, events): its start is written first.
        beforeChannel: start.durable
          ? undefined
          : async () => {
              if (!(await start.ensure())) throw new Error('The execution was cancelled');
            },
        onLog: (level, message, fields) => {
          this.logger.log(`[${execution.skillName} ${execution.id}] ${level}: ${message} ${JSON.stringify(fields)}`);
          // A held 'started' goes out first: one connection, so the stream keeps the order of events.
          void this.events.flush(execution.id);
          writeLog(level, message, fields).catch((error: Error) =>
            this.logger.debug(`could not publish a log line of ${execution.id}: ${error.message}`),
          );
        },
      },
    );
    return onTool.settle(returned);
  }
}

/**
 * The on_tool hooks of one handler run: each completed call runs them in the background, one call after another;
 * a refusal or fail-closed failure aborts the run (its signal), and settle() turns the run's outcome into that error.
 */
class OnToolHooks {
  private readonly controller = new AbortController();
  private chain: Promise<void> = Promise.resolve();
  private stopped: HookRefused | null = null;
  readonly signal: AbortSignal;

  constructor(
    private readonly hooks: AttemptHooks,
    attemptSignal: AbortSignal,
  ) {
    this.signal = hooks.empty ? attemptSignal : AbortSignal.any([attemptSignal, this.controller.signal]);
  }

  called(call: ToolCallEvent): void {
    if (this.hooks.empty || this.stopped) return;
    const done = {
      toolId: call.toolId,
      ok: call.ok ?? false,
      durationMs: Math.round(call.durationMs ?? 0),
      disabled: call.disabled,
      error: call.error,
    };
    this.chain = this.chain.then(() =>
      this.hooks.onTool(done).catch((error: unknown) => {
        if (!(error instanceof HookRefused) || this.stopped) return;
        this.stopped = error;
        this.controller.abort();
      }),
    );
  }

  async settle(outcome: HandlerOutcome): Promise<HandlerOutcome> {
    await this.chain;
    return this.stopped ? { ok: false, error: this.stopped.error } : outcome;
  }
}

function toolEventOf(call: ToolCallEvent): ExecutionEvent {
  if (call.type === 'tool_invoked') return { type: 'tool_invoked', at: call.at, tool_id: call.toolId };
  return {
    type: 'tool_completed',
    at: call.at,
    tool_id: call.toolId,
    duration_ms: Math.round(call.durationMs ?? 0),
    ok: call.ok ?? false,
    ...(call.disabled ? { disabled: true } : {}),
    ...(call.error ? { error: call.error } : {}),
  };
}
