import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { redisTopologyOf } from '#contracts/index.js';
import { openRedis, PlatformEventLog, type RedisConnection } from '#executions/index.js';
import {
  HookFailure,
  HookMetrics,
  HookRefusal,
  type HookObserver,
  type HookSkill,
  HooksFileSource,
  RedisRateCounter,
  type RateCounter,
  WebhookSender,
  messageOf,
  redact,
  runPhase,
} from '#hooks/index.js';
import { parseFeatureFlags } from '#mcp-bridge/index.js';
import type { SkillVersionRecord } from '../catalog/skill-records.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { RegistryMetrics } from '../metrics/registry-metrics.js';
import { HookDenied, HookFailed, RateLimited } from '../problem/domain-errors.js';

/** What a pre_flight hook sees of the execution asked for (nothing is stored yet). */
export interface PreFlightRequest {
  caller: string;
  sessionId: string | null;
  input: Record<string, unknown>;
}

/**
 * The registry's hooks: the `pre_flight` phase of HOOKS_FILE (the executor runs the others), before an execution
 * is stored or queued, and what the file's redact hooks remove from an input the registry itself stores at an
 * end (a cancellation before the start). Same file, same rules (libs/hooks) as the executor's; a failing hook is
 * a `hook.failed` event on the platform's stream (there is no execution yet) and a metric. Redis (the rate
 * counter, that stream) is reached on a connection of its own, made when first needed.
 */
@Injectable()
export class RegistryHooks implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Hooks');
  private readonly source: HooksFileSource;
  private readonly metrics: HookMetrics;
  private connection: RedisConnection | null = null;
  private platformLog: PlatformEventLog | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    registryMetrics: RegistryMetrics,
  ) {
    this.metrics = new HookMetrics(registryMetrics.registry);
    const counter: RateCounter = {
      hit: (key, windowSeconds) => new RedisRateCounter(this.redis, config.QUEUE_PREFIX).hit(key, windowSeconds),
    };
    this.source = new HooksFileSource({
      file: config.HOOKS_FILE,
      featureFlags: parseFeatureFlags(config.FEATURE_FLAGS),
      ports: { rateCounter: counter, webhooks: new WebhookSender() },
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
    this.connection?.disconnect();
  }

  /**
   * Runs the pre_flight hooks of `version` for `request`: the metadata they added (undefined when none), or
   * HookDenied / RateLimited / HookFailed, before anything exists to clean up.
   */
  async preFlight(version: SkillVersionRecord, request: PreFlightRequest): Promise<Record<string, unknown> | undefined> {
    const hooks = this.source.current.forSkill(skillOf(version));
    const phase = hooks.phase('pre_flight');
    if (phase.length === 0) return undefined;
    const event = {
      phase: 'pre_flight' as const,
      skill: skillOf(version),
      execution: { id: null, caller: request.caller, sessionId: request.sessionId, attempt: null, input: request.input },
    };
    try {
      const context = await runPhase(phase, event, hooks.initialContext(), this.observer(version, request.sessionId));
      return Object.keys(context.metadata).length > 0 ? { ...context.metadata } : undefined;
    } catch (error) {
      if (error instanceof HookRefusal) {
        if (error.action === 'rate_limit') throw new RateLimited(error.hook, error.reason, error.retryAfterSeconds ?? 1);
        throw new HookDenied(error.hook, error.reason, error.action);
      }
      if (error instanceof HookFailure) throw new HookFailed(error.hook, error.message);
      throw error;
    }
  }

  /** The input as the file's redact hooks for `version` leave it, or undefined when they remove nothing. */
  redactedInput(version: SkillVersionRecord, input: Record<string, unknown>): Record<string, unknown> | undefined {
    const pointers = this.source.current.forSkill(skillOf(version)).redactions;
    return pointers.length > 0 ? redact({ input }, pointers).input : undefined;
  }

  private observer(version: SkillVersionRecord, sessionId: string | null): HookObserver {
    return {
      ran: (hook, outcome, metrics) => this.metrics.ran(hook, outcome, metrics),
      failed: (hook, error) => {
        this.metrics.failed(hook);
        const message = messageOf(error);
        this.logger.warn(
          `hook '${hook.name}' (pre_flight) failed for ${version.name}${hook.failClosed ? ', fail-closed' : ''}: ${message}`,
        );
        const data = {
          type: 'hook_failed',
          at: new Date().toISOString(),
          hook: hook.name,
          phase: hook.phase,
          error: message,
          fail_closed: hook.failClosed,
        };
        this.platform.append({ type: 'hook.failed', skill: version.name, sessionId, data }).catch((publishError: Error) => {
          this.logger.warn(`hook.failed of '${hook.name}' not published: ${publishError.message}`);
        });
      },
    };
  }

  private get redis(): RedisConnection {
    if (!this.connection) {
      // Like the lifecycle publisher's: an offline queue while it connects, one retry, errors where the commands fail.
      this.connection = openRedis(redisTopologyOf(this.config), { maxRetriesPerRequest: 1 });
    }
    return this.connection;
  }

  private get platform(): PlatformEventLog {
    return (this.platformLog ??= new PlatformEventLog(this.redis, this.config.QUEUE_PREFIX, this.config.EVENTS_HISTORY_MAX));
  }
}

function skillOf(version: SkillVersionRecord): HookSkill {
  return { name: version.name, version: version.version, domain: version.domain, tags: version.tags };
}
