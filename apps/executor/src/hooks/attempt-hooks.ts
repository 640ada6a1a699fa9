import type { ExecutableVersion, ExecutionError, ExecutionRecord } from '#executions/index.js';
import {
  type HookContext as RunContext,
  type HookEvent,
  HookFailure,
  type HookObserver,
  type HookPhase,
  HookRefusal,
  type RunnableHook,
  type SkillHooks,
  redact,
  runPhase,
} from '#hooks/index.js';
import type { ExecutionHook, HookVerdict } from './execution-hook.js';

/** A hook refused the run, or a fail-closed hook failed: the attempt ends with this error. */
export class HookRefused extends Error {
  constructor(readonly error: ExecutionError) {
    super(error.message);
  }
}

/** An adapter tool call as on_tool hooks see it. */
export interface ToolCallDone {
  toolId: string;
  ok: boolean;
  durationMs: number;
  disabled?: boolean;
  error?: { code: string; message: string };
}

/**
 * The hooks of one attempt, bound to its execution, in each phase's order; they share one context (metadata,
 * redactions) from the first phase to the last. Taken once per attempt, so a reload of HOOKS_FILE meanwhile
 * changes the next attempt, never this one. Refusals and fail-closed failures become HookRefused.
 */
export class AttemptHooks {
  private readonly hooks: SkillHooks;
  private context: RunContext;
  /** The stored end, once there is one (what post_delivery code hooks get as `final`). */
  private final: ExecutionRecord | null = null;

  /** `fileHooks`: the file's hooks for this version; `codeHooks`: the registered ExecutionHook providers. */
  constructor(
    fileHooks: SkillHooks,
    codeHooks: readonly ExecutionHook[],
    private readonly execution: ExecutionRecord,
    private readonly version: Pick<ExecutableVersion, 'name' | 'version' | 'domain' | 'tags'>,
    private readonly observer: HookObserver,
  ) {
    this.hooks = fileHooks.with(codeHooks.flatMap((hook) => codeHooksOf(hook, execution, () => this.final)));
    this.context = this.hooks.initialContext();
  }

  /** True when no hook applies to this attempt: it runs exactly as it would without hooks. */
  get empty(): boolean {
    return this.hooks.empty;
  }

  /** What the hooks added, for the events that end a phase chain (undefined when nothing was). */
  get metadata(): Record<string, unknown> | undefined {
    return Object.keys(this.context.metadata).length > 0 ? { ...this.context.metadata } : undefined;
  }

  preStep(): Promise<void> {
    return this.phase('pre_step', {});
  }

  postStep(output: Record<string, unknown>): Promise<void> {
    return this.phase('post_step', { output });
  }

  /** After output validation, before the result is stored: a refusal here fails the run instead. */
  preDelivery(output: Record<string, unknown>): Promise<void> {
    return this.phase('pre_delivery', { output });
  }

  onTool(call: ToolCallDone): Promise<void> {
    const tool = { id: call.toolId, ok: call.ok, durationMs: call.durationMs, disabled: call.disabled, error: call.error };
    return this.phase('on_tool', {}, tool);
  }

  /** Never throws: the attempt is failing already. */
  async onError(error: ExecutionError): Promise<void> {
    await this.phase('on_error', { error }).catch(() => undefined);
  }

  /** After the end is stored and announced; never throws. */
  async postDelivery(final: ExecutionRecord): Promise<void> {
    this.final = final;
    await this.phase('post_delivery', { output: final.output, error: final.error, status: final.status }).catch(() => undefined);
  }

  /** What the end writes beside its status: the output, and the input when the hooks redact it (else it stays as stored). */
  stored(output: Record<string, unknown> | undefined): { input?: Record<string, unknown>; output?: Record<string, unknown> } {
    if (this.context.redactions.length === 0) return output === undefined ? {} : { output };
    const redacted = redact({ input: this.execution.input, output: output ?? null }, this.context.redactions);
    return { input: redacted.input, ...(output === undefined ? {} : { output: redacted.output ?? {} }) };
  }

  private async phase(phase: HookPhase, execution: Partial<HookEvent['execution']>, tool?: HookEvent['tool']): Promise<void> {
    const hooks = this.hooks.phase(phase);
    if (hooks.length === 0) return;
    const event: HookEvent = {
      phase,
      skill: this.version,
      execution: {
        id: this.execution.id,
        caller: this.execution.caller,
        sessionId: this.execution.sessionId,
        attempt: this.execution.attempts,
        input: this.execution.input,
        ...execution,
      },
      ...(tool ? { tool } : {}),
    };
    try {
      this.context = await runPhase(hooks, event, this.context, this.observer);
    } catch (error) {
      throw refusedBy(error);
    }
  }
}

/** The execution error of a refusal or a fail-closed failure (anything else is a bug, rethrown). */
function refusedBy(error: unknown): unknown {
  if (error instanceof HookRefusal) {
    return new HookRefused({
      code: 'HOOK_DENIED',
      message: error.message,
      details: {
        hook: error.hook,
        phase: error.phase,
        reason: error.reason,
        ...(error.action ? { action: error.action } : {}),
        ...(error.retryAfterSeconds !== undefined ? { retry_after_seconds: error.retryAfterSeconds } : {}),
      },
    });
  }
  if (error instanceof HookFailure) {
    return new HookRefused({ code: 'HOOK_FAILED', message: error.message, details: { hook: error.hook, phase: error.phase } });
  }
  return error;
}

/** The phases of a code hook's methods (see ExecutionHook). */
const CODE_PHASES: [keyof ExecutionHook, HookPhase][] = [
  ['beforeExecute', 'pre_step'],
  ['postStep', 'post_step'],
  ['afterExecute', 'pre_delivery'],
  ['postDelivery', 'post_delivery'],
  ['onTool', 'on_tool'],
  ['onError', 'on_error'],
];

/** A code hook as runnable hooks, one per method it has, bound to the execution it runs around. */
function codeHooksOf(hook: ExecutionHook, execution: ExecutionRecord, finalOf: () => ExecutionRecord | null): RunnableHook[] {
  return CODE_PHASES.flatMap(([method, phase]) => {
    const call = hook[method];
    if (typeof call !== 'function') return [];
    return [
      {
        name: hook.name,
        phase,
        priority: hook.priority,
        failClosed: hook.failClosed,
        source: 'code' as const,
        run: async (event: HookEvent, context: RunContext) => {
          const base = { execution, attempt: execution.attempts, metadata: context.metadata, redactions: context.redactions };
          const argument = {
            ...base,
            ...(event.execution.output ? { output: event.execution.output } : {}),
            ...(event.execution.error ? { error: event.execution.error as ExecutionError } : {}),
            ...(event.tool ? { tool: event.tool } : {}),
            ...(phase === 'post_delivery' ? { final: finalOf() ?? execution } : {}),
          };
          const verdict = (await (call as (argument: unknown) => Promise<HookVerdict | void>).call(hook, argument)) ?? undefined;
          if (!verdict) return undefined;
          return {
            ...(verdict.veto ? { refuse: { reason: verdict.veto, action: 'veto' } } : {}),
            metadata: verdict.metadata,
            redactions: verdict.redactions,
            metrics: verdict.metrics,
          };
        },
      },
    ];
  });
}
