import type { ExecutionError, ExecutionRecord } from '#executions/index.js';

/** What a hook sees of the execution it wraps. */
export interface HookContext {
  execution: ExecutionRecord;
  attempt: number;
}

/**
 * A hook around execution (seeds 001/003). Register one as a Nest provider and list it in
 * `ExecutorModule.forRoot({ hooks: [MyHook] })`. Hooks run by ascending `priority`.
 * `failClosed: true` — the hook's own failure fails the execution; `false` — it is logged and ignored.
 */
export interface ExecutionHook {
  readonly name: string;
  readonly priority: number;
  readonly failClosed: boolean;
  /** Return `{ veto: reason }` to refuse the run (the execution fails with PRECONDITION_FAILED). */
  beforeExecute?(context: HookContext): Promise<{ veto?: string } | void> | { veto?: string } | void;
  afterExecute?(context: HookContext & { output: Record<string, unknown> }): Promise<void> | void;
  onError?(context: HookContext & { error: ExecutionError }): Promise<void> | void;
}

/** Injection token of the list of registered hooks. */
export const EXECUTION_HOOKS = Symbol('EXECUTION_HOOKS');
