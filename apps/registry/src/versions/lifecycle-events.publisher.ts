import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { redisTopologyOf } from '#contracts/index.js';
import { PlatformEventLog, lifecycleStream, openRedis, type RedisConnection } from '#executions/index.js';
import type { NewLifecycleEvent } from '../catalog/skill-records.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';

/** Typed lifecycle event as published on Redis for other services. */
interface PublishedLifecycleEvent {
  type: 'skill.lifecycle';
  skill: string;
  version: string;
  from: string | null;
  to: string;
  actor: string;
  reason: string | null;
  forced: boolean;
  at: string;
}

const STREAM_MAX_LENGTH = 100_000;

/**
 * Publishes every lifecycle move on a Redis stream (`<prefix>:lifecycle:events`) and on the platform's stream of
 * every event (`skill.lifecycle`, see platform-events.ts). Postgres holds the authoritative history; publishing
 * is best effort and never fails the move itself.
 */
@Injectable()
export class LifecycleEventsPublisher implements OnApplicationShutdown {
  private readonly logger = new Logger(LifecycleEventsPublisher.name);
  private readonly redis: RedisConnection;
  private readonly platform: PlatformEventLog;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    // Its own connection with an offline queue: moves made while Redis is still connecting (start-up
    // discovery) are published once it is up; while Redis is down they fail after one retry and are logged.
    // Auto-pipelined: the commands of one turn (a move's two, a batch of new versions' all) go in one write.
    this.redis = openRedis(redisTopologyOf(config), { maxRetriesPerRequest: 1, enableAutoPipelining: true });
    this.platform = new PlatformEventLog(this.redis, config.QUEUE_PREFIX, config.EVENTS_HISTORY_MAX);
  }

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }

  async publish(skill: string, version: string, event: NewLifecycleEvent): Promise<void> {
    const published: PublishedLifecycleEvent = {
      type: 'skill.lifecycle',
      skill,
      version,
      from: event.from,
      to: event.to,
      actor: event.actor,
      reason: event.reason,
      forced: event.forced ?? false,
      at: new Date().toISOString(),
    };
    try {
      // Two commands, not a transaction: each stream is complete on its own, and the keys may live on two Cluster nodes.
      await Promise.all([
        this.redis.xadd(
          lifecycleStream(this.config.QUEUE_PREFIX),
          'MAXLEN',
          '~',
          STREAM_MAX_LENGTH,
          '*',
          'event',
          JSON.stringify(published),
        ),
        this.platform.append({ type: 'skill.lifecycle', skill, data: published }),
      ]);
    } catch (error) {
      this.logger.warn(`lifecycle event ${skill}@${version} ${event.from ?? '∅'}→${event.to} not published: ${(error as Error).message}`);
    }
  }
}
