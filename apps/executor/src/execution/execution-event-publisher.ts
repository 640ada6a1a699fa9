import { Inject, Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import {
  ExecutionEventLog,
  PlatformEventLog,
  platformTypeOf,
  type ExecutionEvent,
  type ExecutionRecord,
  type ExecutionSubject,
} from '#executions/index.js';
import { EXECUTOR_CONFIG, type ExecutorConfig } from '../config/executor-config.js';

/**
 * Publishes the events of the executions this process runs, in order per execution, on each one's stream and the
 * platform's. An event may be held for EVENT_HOLD_MS to go out together with the execution's next one: a short
 * execution publishes 'started' and its end in one round trip, a long one shows 'started' a few milliseconds
 * late. The order of events never changes. Publishing failures are logged, never thrown (the row is the truth).
 */
@Injectable()
export class ExecutionEventPublisher {
  private readonly logger = new Logger(ExecutionEventPublisher.name);
  /** Events held back briefly per execution, to go out with the next one. */
  private readonly held = new Map<string, { events: ExecutionEvent[]; timer: NodeJS.Timeout }>();
  /** Whose each execution is (skill, session), for the platform's stream: told at every pickup (track). */
  private readonly subjects = new LRUCache<string, ExecutionSubject>({ max: 10_000 });

  constructor(
    private readonly events: ExecutionEventLog,
    private readonly platform: PlatformEventLog,
    @Inject(EXECUTOR_CONFIG) private readonly config: ExecutorConfig,
  ) {}

  /** Remembers whose `execution` is, so that its events carry its skill and session on the platform's stream. */
  track(execution: Pick<ExecutionRecord, 'id' | 'skillName' | 'sessionId'>): void {
    this.subjects.set(execution.id, { executionId: execution.id, skill: execution.skillName, sessionId: execution.sessionId });
  }

  /** An event only the platform's stream gets (a post_delivery hook's failure, after the execution's last event). */
  async publishPlatformOnly(executionId: string, event: ExecutionEvent): Promise<void> {
    const type = platformTypeOf(event);
    if (!type) return;
    const subject = this.subjectOf(executionId);
    try {
      await this.platform.append({ type, executionId, skill: subject.skill, sessionId: subject.sessionId, data: event });
    } catch (error) {
      this.logger.warn(`could not publish ${event.type} of ${executionId}: ${(error as Error).message}`);
    }
  }

  /** Publishes `event` within EVENT_HOLD_MS, together with the execution's next event if one comes sooner. */
  hold(executionId: string, event: ExecutionEvent): void {
    const held = this.held.get(executionId);
    if (held) {
      held.events.push(event);
      return;
    }
    const timer = setTimeout(() => void this.flush(executionId), this.config.EVENT_HOLD_MS);
    this.held.set(executionId, { events: [event], timer });
  }

  /** Publishes what is held for the execution now (before a line that must follow it on the stream). */
  flush(executionId: string): Promise<void> {
    return this.append(executionId, this.take(executionId));
  }

  /** Drops what is held (someone else decided the execution's end and published it). */
  drop(executionId: string): void {
    this.take(executionId);
  }

  /** Publishes `event` after any held events of the execution, on one connection (so in order). */
  publish(executionId: string, event: ExecutionEvent): Promise<void> {
    return this.append(executionId, [...this.take(executionId), event]);
  }

  /** Whose the execution is; a pickup always tracks it first, so the fallback is for the never-seen only. */
  private subjectOf(executionId: string): ExecutionSubject {
    return this.subjects.get(executionId) ?? { executionId, skill: '', sessionId: null };
  }

  private take(executionId: string): ExecutionEvent[] {
    const held = this.held.get(executionId);
    if (!held) return [];
    clearTimeout(held.timer);
    this.held.delete(executionId);
    return held.events;
  }

  private async append(executionId: string, events: ExecutionEvent[]): Promise<void> {
    if (events.length === 0) return;
    try {
      await this.events.append(this.subjectOf(executionId), events);
    } catch (error) {
      this.logger.warn(`could not publish ${events.map((event) => event.type).join(', ')} of ${executionId}: ${(error as Error).message}`);
    }
  }
}
