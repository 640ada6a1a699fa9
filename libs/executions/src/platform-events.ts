import type { RedisConnection } from './redis-connection.js';
import { readStreamNow, type StreamReads } from './shared-stream-reads.js';
import type { ExecutionEvent } from './execution-events.js';

/**
 * The platform's event types, named as seed 003 §7 names them where they apply. One execution runs one skill,
 * so the seed's run.* are an execution's own moves (queued, started, retrying, completed, failed, cancelled);
 * skill.output_invalid, tool.*, hook.failed keep the seed's names; step.* are a workflow's steps (seed 004
 * workflows, each step one script tool run of the execution); twin.* are the digital twin's, and
 * skill.lifecycle a version's lifecycle move (published before this stream existed under that name).
 */
export const PLATFORM_EVENT_TYPES = [
  'run.queued',
  'run.started',
  'run.retrying',
  'run.completed',
  'run.failed',
  'run.cancelled',
  'skill.output_invalid',
  'tool.invoked',
  'tool.completed',
  'tool.failed',
  'step.started',
  'step.completed',
  'step.failed',
  'twin.read',
  'twin.written',
  'hook.failed',
  'skill.lifecycle',
] as const;
export type PlatformEventType = (typeof PLATFORM_EVENT_TYPES)[number];

/** Entries the platform's stream keeps when nothing says otherwise (EVENTS_HISTORY_MAX). */
export const DEFAULT_EVENTS_HISTORY = 10_000;

/** The platform's one stream (`<prefix>:events`), beside the per-execution streams and with the same prefix. */
export function platformEventsStream(prefix: string): string {
  return `${prefix}:events`;
}

/** An execution's event as the platform's stream types it; null for handler log lines (they stay on the execution's stream). */
export function platformTypeOf(event: ExecutionEvent): PlatformEventType | null {
  switch (event.type) {
    case 'queued':
      return 'run.queued';
    case 'started':
      return 'run.started';
    case 'attempt_failed':
      return 'run.retrying';
    case 'succeeded':
      return 'run.completed';
    case 'failed':
      return 'run.failed';
    case 'cancelled':
      return 'run.cancelled';
    case 'output_invalid':
      return 'skill.output_invalid';
    case 'tool_invoked':
      return 'tool.invoked';
    case 'tool_completed':
      return event.ok ? 'tool.completed' : 'tool.failed';
    case 'step_started':
      return 'step.started';
    case 'step_completed':
      return event.ok ? 'step.completed' : 'step.failed';
    case 'twin_read':
      return 'twin.read';
    case 'twin_written':
      return 'twin.written';
    case 'hook_failed':
      return 'hook.failed';
    case 'log':
      return null;
  }
}

/** Whose events they are: the execution, its skill and its session (what subscriptions filter on). */
export interface ExecutionSubject {
  executionId: string;
  skill: string;
  sessionId: string | null;
}

/** One event of the platform's stream as read back. `data` is the event as its source wrote it. */
export interface PlatformEvent {
  /** Its position in the stream (`<ms>-<seq>`): resume after it. */
  id: string;
  type: PlatformEventType;
  at: string;
  execution_id: string | null;
  skill: string | null;
  session_id: string | null;
  data: Record<string, unknown>;
}

/** An event for the platform's stream that comes from no execution's stream (a lifecycle move, a pre-flight hook). */
export interface PlatformEventEntry {
  type: PlatformEventType;
  skill: string | null;
  executionId?: string | null;
  sessionId?: string | null;
  data: { readonly at: string };
}

/**
 * The platform's stream on Redis: appends of what no execution's stream carries, and reads of everything, after
 * an id, optionally blocking. (Execution events reach it through ExecutionEventLog.append, in the same command
 * as their execution's stream.)
 */
export class PlatformEventLog {
  private readonly key: string;

  constructor(
    private readonly redis: RedisConnection,
    prefix: string,
    private readonly historyLength: number = DEFAULT_EVENTS_HISTORY,
  ) {
    this.key = platformEventsStream(prefix);
  }

  async append(entry: PlatformEventEntry): Promise<string> {
    return (await this.redis.xadd(
      this.key,
      'MAXLEN',
      '~',
      this.historyLength,
      '*',
      'type',
      entry.type,
      'execution',
      entry.executionId ?? '',
      'skill',
      entry.skill ?? '',
      'session',
      entry.sessionId ?? '',
      'data',
      JSON.stringify(entry.data),
    )) as string;
  }

  /** The id of the newest entry ('0-0' when there is none): a subscription "from now" reads after it. */
  async lastId(client: RedisConnection = this.redis): Promise<string> {
    const [newest] = await client.xrevrange(this.key, '+', '-', 'COUNT', 1);
    return newest?.[0] ?? '0-0';
  }

  /**
   * Up to `count` entries after `afterId` ('0' = the oldest kept), waiting up to `blockMs` for new ones (0 = do not wait)
   * on a follower's `reads` (SharedStreamReads); without them, at once on this log's connection.
   */
  async read(afterId: string, blockMs: number, reads?: StreamReads, count = 100): Promise<PlatformEvent[]> {
    const entries = reads ? await reads.read(this.key, afterId, count, blockMs) : await readStreamNow(this.redis, this.key, afterId, count);
    return entries.flatMap(([id, fields]) => {
      const event = eventOf(id, fields);
      return event ? [event] : [];
    });
  }
}

/** An entry's fields as an event; null for one that does not read as one (never written by this code). */
function eventOf(id: string, fields: string[]): PlatformEvent | null {
  const values = new Map<string, string>();
  for (let index = 0; index + 1 < fields.length; index += 2) values.set(fields[index] as string, fields[index + 1] as string);
  const type = values.get('type') as PlatformEventType | undefined;
  if (!type || !(PLATFORM_EVENT_TYPES as readonly string[]).includes(type)) return null;
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(values.get('data') ?? '{}') as Record<string, unknown>;
  } catch {
    return null;
  }
  return {
    id,
    type,
    at: typeof data.at === 'string' ? data.at : new Date(Number(id.split('-')[0])).toISOString(),
    execution_id: values.get('execution') || null,
    skill: values.get('skill') || null,
    session_id: values.get('session') || null,
    data,
  };
}
