import { Counter, type Registry } from 'prom-client';
import type { HooksReload } from './hooks-file-source.js';
import type { RunnableHook } from './hook-run.js';

/**
 * The hooks' Prometheus metrics, the same in the registry and the executor (on each one's registry). Labels are
 * bounded: hook names come from the file and the code, phases and outcomes are fixed, metric names are the hooks'.
 */
export class HookMetrics {
  private readonly runs: Counter<'hook' | 'phase' | 'outcome'>;
  private readonly failures: Counter<'hook' | 'phase'>;
  private readonly reported: Counter<'hook' | 'metric'>;
  private readonly reloads: Counter<'outcome'>;

  constructor(registry: Registry) {
    this.runs = new Counter({
      name: 'skill_hook_runs_total',
      help: 'Hooks run, by hook, phase and outcome (ok, refused, failed)',
      labelNames: ['hook', 'phase', 'outcome'],
      registers: [registry],
    });
    this.failures = new Counter({
      name: 'skill_hook_failures_total',
      help: 'Hooks that failed (each also a hook.failed event), by hook and phase',
      labelNames: ['hook', 'phase'],
      registers: [registry],
    });
    this.reported = new Counter({
      name: 'skill_hook_reported_total',
      help: 'What hooks report as metrics (webhook deliveries and tries, rate-limit outcomes, code hooks their own), summed',
      labelNames: ['hook', 'metric'],
      registers: [registry],
    });
    this.reloads = new Counter({
      name: 'skill_hooks_file_reloads_total',
      help: 'Reloads of HOOKS_FILE after it changed: reloaded, or kept (the last good hooks stay: the file is invalid or gone)',
      labelNames: ['outcome'],
      registers: [registry],
    });
  }

  ran(hook: RunnableHook, outcome: 'ok' | 'refused', metrics: Record<string, number> | undefined): void {
    this.runs.inc({ hook: hook.name, phase: hook.phase, outcome });
    for (const [metric, value] of Object.entries(metrics ?? {})) {
      if (Number.isFinite(value) && value >= 0 && /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/.test(metric))
        this.reported.inc({ hook: hook.name, metric }, value);
    }
  }

  failed(hook: RunnableHook): void {
    this.runs.inc({ hook: hook.name, phase: hook.phase, outcome: 'failed' });
    this.failures.inc({ hook: hook.name, phase: hook.phase });
  }

  reloaded(reload: HooksReload): void {
    this.reloads.inc({ outcome: reload.outcome });
  }
}
