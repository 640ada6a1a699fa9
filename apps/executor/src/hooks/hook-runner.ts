import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ExecutionError } from '#executions/index.js';
import { EXECUTION_HOOKS, type ExecutionHook, type HookContext } from './execution-hook.js';

/** A fail-closed hook failed, or a hook vetoed the run. */
export class HookRefused extends Error {
  constructor(readonly error: ExecutionError) {
    super(error.message);
  }
}

/** Runs the registered hooks in priority order with their fail-open/fail-closed policy. */
@Injectable()
export class HookRunner {
  private readonly logger = new Logger(HookRunner.name);
  private readonly hooks: ExecutionHook[];

  constructor(@Inject(EXECUTION_HOOKS) hooks: ExecutionHook[]) {
    this.hooks = [...hooks].sort((a, b) => a.priority - b.priority || a.name.localeCompare(b.name));
  }

  /** True when no hook is registered (nothing runs around a handler but the handler). */
  get empty(): boolean {
    return this.hooks.length === 0;
  }

  /** Throws HookRefused on a veto or a fail-closed failure. */
  async beforeExecute(context: HookContext): Promise<void> {
    for (const hook of this.hooks) {
      if (!hook.beforeExecute) continue;
      let verdict: { veto?: string } | void;
      try {
        verdict = await hook.beforeExecute(context);
      } catch (error) {
        this.failed(hook, 'before_execute', error);
        continue;
      }
      if (verdict?.veto) {
        throw new HookRefused({
          code: 'PRECONDITION_FAILED',
          message: `Vetoed by hook '${hook.name}': ${verdict.veto}`,
          details: { hook: hook.name, veto: verdict.veto },
        });
      }
    }
  }

  async afterExecute(context: HookContext & { output: Record<string, unknown> }): Promise<void> {
    for (const hook of this.hooks) {
      if (!hook.afterExecute) continue;
      try {
        await hook.afterExecute(context);
      } catch (error) {
        this.failed(hook, 'after_execute', error);
      }
    }
  }

  /** on_error hooks never change the outcome (the execution is failing already); failures are logged. */
  async onError(context: HookContext & { error: ExecutionError }): Promise<void> {
    for (const hook of this.hooks) {
      if (!hook.onError) continue;
      try {
        await hook.onError(context);
      } catch (error) {
        this.logger.warn(`hook ${hook.name} on_error failed: ${(error as Error).message}`);
      }
    }
  }

  private failed(hook: ExecutionHook, stage: string, error: unknown): void {
    const message = `hook '${hook.name}' ${stage} failed: ${(error as Error)?.message ?? String(error)}`;
    if (!hook.failClosed) {
      this.logger.warn(`${message} (fail-open: ignored)`);
      return;
    }
    throw new HookRefused({ code: 'PRECONDITION_FAILED', message, details: { hook: hook.name, stage } });
  }
}
