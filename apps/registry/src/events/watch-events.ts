import { Injectable } from '@nestjs/common';
import type { PlatformEvent } from '#executions/index.js';
import { mayPublish, type Principal } from '../auth/principal.js';
import { PlatformEventStream } from './platform-event-stream.js';

/** What a subscription follows: which events, and from where. */
export interface EventsFilter {
  /** Types or families (`run.*`); every type when left out. */
  types?: string[];
  skill?: string;
  sessionId?: string;
  /** Resume after this id ('0': from the oldest kept); undefined: from now on. */
  from?: string;
}

/**
 * Whether `principal` gets `event` under `filter`: an admin every event; a publisher (a scoped token) the events
 * of the skills its scopes cover, never one of no skill. (Who may subscribe at all is the transports' access rule.)
 */
export function delivers(principal: Principal, filter: EventsFilter, event: PlatformEvent): boolean {
  if (principal.role !== 'admin' && (event.skill === null || !mayPublish(principal, event.skill))) return false;
  if (filter.skill !== undefined && event.skill !== filter.skill) return false;
  if (filter.sessionId !== undefined && event.session_id !== filter.sessionId) return false;
  if (
    filter.types &&
    !filter.types.some((type) => type === event.type || (type.endsWith('.*') && event.type.startsWith(type.slice(0, -1))))
  ) {
    return false;
  }
  return true;
}

/**
 * Seed 003 §7's subscription to every event (the bus's "*"), over the platform's bounded stream: what `principal`
 * may see of it, filtered, from a resume point on. REST (SSE) and gRPC (WatchEvents) both call this.
 */
@Injectable()
export class WatchEvents {
  constructor(private readonly stream: PlatformEventStream) {}

  /**
   * The events, and `null` heartbeats while the stream is quiet, once the subscription's position is fixed (every
   * event appended after this resolves is delivered); ends when `signal` aborts.
   */
  watch(principal: Principal, filter: EventsFilter, signal: AbortSignal): Promise<AsyncGenerator<PlatformEvent | null>> {
    return this.stream.follow(filter.from, (event) => delivers(principal, filter, event), signal, principal.identity);
  }
}
