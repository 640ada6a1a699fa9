import type { ExecutionError, ExecutionRecord } from '#executions/index.js';

/** What a code hook sees of the execution it wraps, and what the hooks before it added. */
interface HookContext {
  execution: ExecutionRecord;
  attempt: number;
  /** Metadata the hooks before it added (annotate, other code hooks). */
  metadata: Readonly<Record<string, unknown>>;
  /** JSON Pointers into `{ input, output }` removed from what is stored and sent about the run. */
  redactions: readonly string[];
}

/**
 * What a code hook may answer: `veto` refuses the run (HOOK_DENIED naming the hook; only where the run can still
 * stop), `metadata` and `redactions` join the run's context (as an `annotate` or `redact` hook's would), `metrics`
 * are counted (skill_hook_reported_total). Nothing, or void, changes nothing.
 */
export interface HookVerdict {
  veto?: string;
  metadata?: Record<string, unknown>;
  redactions?: string[];
  metrics?: Record<string, number>;
}

type Answer = Promise<HookVerdict | void> | HookVerdict | void;

/**
 * A hook around execution written as code (seeds 001/003), beside the hooks of HOOKS_FILE and ordered with them by
 * ascending `priority`, then name. Register one as a Nest provider and list it in
 * `ExecutorModule.forRoot({ hooks: [MyHook] })`. Each method is one phase:
 *
 * | method          | phase           | when |
 * |-----------------|-----------------|------|
 * | `beforeExecute` | `pre_step`      | before each attempt (after input validation) |
 * | `postStep`      | `post_step`     | after the handler returns, before output validation (each try of a gate that re-asks) |
 * | `afterExecute`  | `pre_delivery`  | after output validation, before the result is stored and announced |
 * | `postDelivery`  | `post_delivery` | after the end is stored and announced (success, failure, cancellation) |
 * | `onTool`        | `on_tool`       | after each adapter tool call of the handler |
 * | `onError`       | `on_error`      | when an attempt fails (also one that is retried) |
 *
 * `failClosed: true`: the hook's own failure (a throw) stops the run with HOOK_FAILED naming it; `false`: it is
 * reported (a `hook_failed` event, a metric) and the run goes on. In `postDelivery` and `onError` nothing stops.
 * Code hooks apply to every skill (the file's hooks have scopes); only the executor runs them (no `pre_flight`).
 */
export interface ExecutionHook {
  readonly name: string;
  readonly priority: number;
  readonly failClosed: boolean;
  beforeExecute?(context: HookContext): Answer;
  postStep?(context: HookContext & { output: Record<string, unknown> }): Answer;
  afterExecute?(context: HookContext & { output: Record<string, unknown> }): Answer;
  postDelivery?(context: HookContext & { final: ExecutionRecord }): Answer;
  onTool?(
    context: HookContext & { tool: { id: string; ok: boolean; durationMs: number; error?: { code: string; message: string } } },
  ): Answer;
  onError?(context: HookContext & { error: ExecutionError }): Answer;
}

/** Injection token of the list of registered hooks. */
export const EXECUTION_HOOKS = Symbol('EXECUTION_HOOKS');
