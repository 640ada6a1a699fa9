import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { type ExecutableVersion, type ExecutionEvent, type ExecutionRecord, ExecutionsRepository } from '#executions/index.js';
import { HookMetrics, type HookObserver, type HookPorts, HooksFileSource, type HookSkill, messageOf, redact } from '#hooks/index.js';
import { parseFeatureFlags } from '#mcp-bridge/index.js';
import { EXECUTOR_CONFIG, type ExecutorConfig } from '../config/executor-config.js';
import { ExecutorMetrics } from '../metrics/executor-metrics.js';
import { AttemptHooks } from './attempt-hooks.js';
import { EXECUTION_HOOKS, type ExecutionHook } from './execution-hook.js';

/** Injection token of what the file's actions use: the rate counter on Redis and the webhook sender. */
export const HOOK_PORTS = Symbol('HOOK_PORTS');

/** Where hook failures are published (the ExecutionEventPublisher: the hooks sit below the execution feature). */
export interface HookEventSink {
  publish(executionId: string, event: ExecutionEvent): Promise<void>;
  publishPlatformOnly(executionId: string, event: ExecutionEvent): Promise<void>;
}
export const HOOK_EVENTS = Symbol('HOOK_EVENTS');

/**
 * The executor's hooks: those of HOOKS_FILE (reloaded when it changes) whose scope covers the skill and whose
 * feature flag is on, and the code hooks, in one order per phase. Each attempt takes its hooks once (forAttempt);
 * a failing hook is a `hook_failed` event on the execution's stream (post_delivery ones, after its end, only on
 * the platform's) and a metric.
 */
@Injectable()
export class ExecutorHooks implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Hooks');
  private readonly source: HooksFileSource;
  private readonly metrics: HookMetrics;

  constructor(
    @Inject(EXECUTION_HOOKS) private readonly codeHooks: ExecutionHook[],
    @Inject(EXECUTOR_CONFIG) config: ExecutorConfig,
    @Inject(HOOK_PORTS) ports: HookPorts,
    @Inject(HOOK_EVENTS) private readonly events: HookEventSink,
    private readonly executions: ExecutionsRepository,
    executorMetrics: ExecutorMetrics,
  ) {
    this.metrics = new HookMetrics(executorMetrics.registry);
    this.source = new HooksFileSource({
      file: config.HOOKS_FILE,
      featureFlags: parseFeatureFlags(config.FEATURE_FLAGS),
      ports,
      onReload: (reload) => {
        this.metrics.reloaded(reload);
        if (reload.outcome === 'reloaded') this.logger.log(`HOOKS_FILE reloaded: ${reload.hooks} hook(s)`);
        else this.logger.error(`HOOKS_FILE changed but the last good hooks stay: ${reload.reason}`);
      },
    });
  }

  async onModuleInit(): Promise<void> {
    await this.source.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.source.stop();
  }

  /** The hooks of one attempt of `execution` (empty when none applies: then nothing runs around the handler). */
  forAttempt(execution: ExecutionRecord, version: ExecutableVersion): AttemptHooks {
    return new AttemptHooks(
      this.source.current.forSkill(skillOf(version)),
      this.codeHooks,
      execution,
      version,
      this.observerFor(execution),
    );
  }

  /** The input as an end that runs no hooks keeps it (a cancellation, a lost worker): redacted, or undefined when unchanged. */
  storedInput(execution: ExecutionRecord, version: ExecutableVersion): Record<string, unknown> | undefined {
    const pointers = this.source.current.forSkill(skillOf(version)).redactions;
    return pointers.length > 0 ? redact({ input: execution.input }, pointers).input : undefined;
  }

  /** storedInput for an execution whose version is not at hand (a takeover): read only when some hook redacts. */
  async storedInputOf(execution: ExecutionRecord): Promise<Record<string, unknown> | undefined> {
    if (!this.source.current.definitions.some((hook) => hook.action.type === 'redact')) return undefined;
    const version = await this.executions.findVersion(execution.skillVersionId);
    return version ? this.storedInput(execution, version) : undefined;
  }

  private observerFor(execution: ExecutionRecord): HookObserver {
    return {
      ran: (hook, outcome, metrics) => this.metrics.ran(hook, outcome, metrics),
      failed: (hook, error) => {
        this.metrics.failed(hook);
        const message = messageOf(error);
        this.logger.warn(
          `hook '${hook.name}' (${hook.phase}) failed for ${execution.id}${hook.failClosed ? ', fail-closed' : ''}: ${message}`,
        );
        const event: ExecutionEvent = {
          type: 'hook_failed',
          at: new Date().toISOString(),
          hook: hook.name,
          phase: hook.phase,
          error: message,
          fail_closed: hook.failClosed,
        };
        // After the end nothing follows on the execution's stream (its terminal event is its last).
        if (hook.phase === 'post_delivery') void this.events.publishPlatformOnly(execution.id, event);
        else void this.events.publish(execution.id, event);
      },
    };
  }
}

function skillOf(version: ExecutableVersion): HookSkill {
  return { name: version.name, version: version.version, domain: version.domain, tags: version.tags };
}
