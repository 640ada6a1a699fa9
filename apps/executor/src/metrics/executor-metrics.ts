import { Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { DatabasePool } from '#database/index.js';
import { DURATION_BUCKETS, createMetricsRegistry, registerPoolMetrics, seconds } from '#observability/index.js';
import type { ExecutionError, ExecutionRecord } from '#executions/index.js';
import { HandlerSandboxPool } from '#handler-sandbox/index.js';

/** Where the gauges read what they report at scrape time (set by the worker once its queue exists). */
export interface QueueProbe {
  jobCounts(): Promise<Record<string, number>>;
}

/**
 * The executor's Prometheus metrics (GET /metrics on its health port). Labels are bounded: skill,
 * version and tool names from the catalog, statuses, error codes; never ids or free text.
 */
@Injectable()
export class ExecutorMetrics {
  readonly registry = createMetricsRegistry('executor');
  private queue: QueueProbe | null = null;

  private readonly finished = new Counter({
    name: 'skill_executions_total',
    help: 'Executions that reached a terminal state, by skill, version, tool, status and error code',
    labelNames: ['skill', 'version', 'tool', 'status', 'error_code'],
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'skill_execution_duration_seconds',
    help: 'Time from an execution start to its end (all attempts), by skill, tool and status',
    labelNames: ['skill', 'tool', 'status'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly attempts = new Counter({
    name: 'skill_execution_attempts_total',
    help: 'Attempts started, by skill and tool',
    labelNames: ['skill', 'tool'],
    registers: [this.registry],
  });
  private readonly retries = new Counter({
    name: 'skill_execution_retries_total',
    help: 'Attempts that failed and were retried (idempotent skills only), by skill, tool and error code',
    labelNames: ['skill', 'tool', 'error_code'],
    registers: [this.registry],
  });
  private readonly lost = new Counter({
    name: 'skill_execution_worker_lost_total',
    help: 'Attempts taken over after their worker stopped heartbeating, by outcome (failed: WORKER_LOST; released: retried)',
    labelNames: ['skill', 'outcome'],
    registers: [this.registry],
  });

  constructor(@Inject('PG_POOL_HEALTH') pool: DatabasePool, sandbox: HandlerSandboxPool) {
    registerPoolMetrics(this.registry, pool);
    const queueOf = () => this.queue;
    new Gauge({
      name: 'skill_queue_jobs',
      help: 'Jobs in the execution queue, by BullMQ state',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        const counts = await queueOf()
          ?.jobCounts()
          .catch(() => null);
        for (const [state, count] of Object.entries(counts ?? {})) this.set({ state }, count);
      },
    });
    new Gauge({
      name: 'skill_queue_oldest_queued_seconds',
      help: 'Age of the oldest QUEUED execution (0 when none)',
      registers: [this.registry],
      async collect() {
        const result = await pool
          .query(`SELECT COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS age FROM executions WHERE status = 'QUEUED'`)
          .catch(() => null);
        if (result) this.set(Number(result.rows[0]?.age ?? 0));
      },
    });
    new Gauge({
      name: 'skill_sandbox_processes',
      help: 'Sandbox processes running TypeScript handlers (idle or busy)',
      registers: [this.registry],
      collect() {
        this.set(sandbox.size);
      },
    });
  }

  /** The queue the gauges report on (the worker's). */
  observeQueue(queue: QueueProbe): void {
    this.queue = queue;
  }

  attemptStarted(execution: ExecutionRecord): void {
    this.attempts.inc({ skill: execution.skillName, tool: execution.tool ?? '' });
  }

  retried(execution: ExecutionRecord, error: ExecutionError): void {
    this.retries.inc({ skill: execution.skillName, tool: execution.tool ?? '', error_code: error.code });
  }

  takenOver(execution: ExecutionRecord, outcome: 'failed' | 'released'): void {
    this.lost.inc({ skill: execution.skillName, outcome });
  }

  /** A terminal record, as the database returned it. */
  concluded(execution: ExecutionRecord): void {
    const tool = execution.tool ?? '';
    this.finished.inc({
      skill: execution.skillName,
      version: execution.version,
      tool,
      status: execution.status,
      error_code: execution.error?.code ?? '',
    });
    if (execution.durationMs !== null)
      this.duration.observe({ skill: execution.skillName, tool, status: execution.status }, seconds(execution.durationMs));
  }
}
