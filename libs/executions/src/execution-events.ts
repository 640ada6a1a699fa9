import type { ExecutionError } from './execution-model.js';
import { DEFAULT_EVENTS_HISTORY, type ExecutionSubject, platformEventsStream, platformTypeOf } from './platform-events.js';
import type { RedisConnection } from './redis-connection.js';
import { readStreamNow, type StreamReads } from './shared-stream-reads.js';
import { executionEventsKey, executionLogCountKey } from './redis-keys.js';

/** What the hooks of a run added as metadata (annotate, code hooks), on the event that ends a phase chain. */
type HookMetadata = { metadata?: Record<string, unknown> };

/** The typed events of one execution, in the order they happen. */
export type ExecutionEvent =
  | ({ type: 'queued'; at: string; skill: string; version: string } & HookMetadata)
  | { type: 'started'; at: string; attempt: number }
  | { type: 'attempt_failed'; at: string; attempt: number; error: ExecutionError; next_delay_ms: number }
  | { type: 'tool_invoked'; at: string; tool_id: string }
  | {
      type: 'tool_completed';
      at: string;
      tool_id: string;
      duration_ms: number;
      ok: boolean;
      /** The tool is switched off (TOOLS_DISABLED): the handler got `{ disabled: true, reason }`. */
      disabled?: true;
      error?: { code: string; message: string };
    }
  | {
      /** Seed 001 §2.3: a try's result failed output validation; `reask`: the gate asks the handler again. */
      type: 'output_invalid';
      at: string;
      attempt: number;
      try: number;
      errors: Record<string, unknown>[];
      reask: boolean;
    }
  /** A workflow's step (seed 004 `workflows/`) is about to run its tool, with the arguments mapped for it. */
  | { type: 'step_started'; at: string; step: string; tool: string; index: number }
  | {
      type: 'step_completed';
      at: string;
      step: string;
      tool: string;
      index: number;
      duration_ms: number;
      ok: boolean;
      error?: ExecutionError;
    }
  | { type: 'twin_read'; at: string; work_product_id: string; revision: number; branch: string }
  | { type: 'twin_written'; at: string; work_product_id: string; revision: number; branch: string; kind: string }
  | {
      /** A hook failed (seed 003 §6): fail-open, the run went on; fail-closed, it stopped with HOOK_FAILED. */
      type: 'hook_failed';
      at: string;
      hook: string;
      phase: string;
      error: string;
      fail_closed: boolean;
    }
  | ({ type: 'succeeded'; at: string; attempt: number; duration_ms: number } & HookMetadata)
  | ({ type: 'failed'; at: string; attempt: number; error: ExecutionError } & HookMetadata)
  | ({ type: 'cancelled'; at: string; reason: string } & HookMetadata)
  | ExecutionLogEvent;

/**
 * One line of a handler's `ctx.logger`, with MCP's level names (a SkillLogger's `warn` is `warning`).
 * Bounded (see logEventOf); `truncated` says the message was cut or the fields were left out.
 */
export interface ExecutionLogEvent {
  type: 'log';
  at: string;
  level: ExecutionLogLevel;
  message: string;
  fields?: Record<string, unknown>;
  truncated?: true;
}

type ExecutionLogLevel = 'debug' | 'info' | 'warning' | 'error';

export type ExecutionEventType = ExecutionEvent['type'];

export const TERMINAL_EVENT_TYPES: ReadonlySet<ExecutionEventType> = new Set(['succeeded', 'failed', 'cancelled']);

/** A stored event with its position in the execution's stream. */
export interface StoredExecutionEvent {
  id: string;
  event: ExecutionEvent;
}

/** How long an execution's event stream is kept after it ends. */
const FINISHED_STREAM_TTL_SECONDS = 7 * 24 * 3600;

/** Log lines kept per execution (all attempts, any worker); the first line over it becomes a notice. */
export const MAX_LOG_EVENTS_PER_EXECUTION = 200;
/** A longer message is cut to this many characters (its last one an ellipsis). */
export const MAX_LOG_MESSAGE_CHARS = 2000;
/** Fields whose JSON is longer than this are left out. */
export const MAX_LOG_FIELDS_BYTES = 4096;

const LOG_LEVELS: Record<string, ExecutionLogLevel> = { debug: 'debug', info: 'info', warn: 'warning', error: 'error' };

/** The `log` event of one handler log line: known level, message cut, fields JSON-safe and bounded. */
function logEventOf(
  level: string,
  message: string,
  fields: Record<string, unknown> = {},
  at = new Date().toISOString(),
): ExecutionLogEvent {
  const text = String(message);
  const cut = text.length > MAX_LOG_MESSAGE_CHARS;
  let json: string | undefined;
  try {
    json = JSON.stringify(fields, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
  } catch {
    json = undefined; // cyclic: left out
  }
  const fieldsFit = json !== undefined && Buffer.byteLength(json) <= MAX_LOG_FIELDS_BYTES;
  return {
    type: 'log',
    at,
    level: LOG_LEVELS[level] ?? 'info',
    // Not ending in half a surrogate pair.
    message: cut ? `${text.slice(0, MAX_LOG_MESSAGE_CHARS - 1).replace(/[\uD800-\uDBFF]$/, '')}…` : text,
    ...(fieldsFit && json !== '{}' ? { fields: JSON.parse(json as string) as Record<string, unknown> } : {}),
    ...(cut || !fieldsFit ? { truncated: true as const } : {}),
  };
}

/**
 * Counts an execution's log lines and appends the event while there are fewer than the limit; at the
 * limit, appends the notice instead. One script, so workers and attempts share one count.
 * KEYS: stream, counter. ARGV: limit, event, notice, counter TTL. Returns 1 while lines are kept.
 */
const APPEND_LOG_SCRIPT = `
local count = redis.call('INCR', KEYS[2])
if count == 1 then redis.call('EXPIRE', KEYS[2], ARGV[4]) end
local limit = tonumber(ARGV[1])
if count <= limit then
  redis.call('XADD', KEYS[1], '*', 'event', ARGV[2])
  return 1
end
if count == limit + 1 then redis.call('XADD', KEYS[1], '*', 'event', ARGV[3]) end
return 0`;

/**
 * Appends events to an execution's stream in order and, with a TTL (ARGV[1] > 0), makes the stream expire; each
 * event with a platform type goes on the platform's stream too, trimmed to about its history length (MAXLEN ~,
 * so trimming costs nothing per event). Both keys share the prefix (a hash-tagged prefix keeps them in one slot).
 * KEYS: execution stream, platform stream. ARGV: ttl seconds (0 = none), history length, skill, session id ('' =
 * none), execution id, then per event its JSON and its platform type ('' = not on the platform stream).
 * Returns the last event's id on the execution's stream.
 */
const APPEND_EVENTS_SCRIPT = `
local id
for i = 6, #ARGV, 2 do
  id = redis.call('XADD', KEYS[1], '*', 'event', ARGV[i])
  if ARGV[i + 1] ~= '' then
    redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'type', ARGV[i + 1], 'execution', ARGV[5], 'skill', ARGV[3], 'session', ARGV[4], 'data', ARGV[i])
  end
end
local ttl = tonumber(ARGV[1])
if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
return id`;
const APPEND_EVENTS_COMMAND = 'appendExecutionEvents';

/**
 * Execution events on Redis Streams: one stream per execution, so any registry replica can replay
 * an execution from the beginning and follow it live; and, in the same command, the platform's one stream of
 * every execution's events (platform-events.ts), bounded to `historyLength` entries.
 */
export class ExecutionEventLog {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    private readonly historyLength: number = DEFAULT_EVENTS_HISTORY,
  ) {
    // Sent as EVALSHA (the script text only when Redis does not know it yet).
    if (!(APPEND_EVENTS_COMMAND in redis)) redis.defineCommand(APPEND_EVENTS_COMMAND, { numberOfKeys: 2, lua: APPEND_EVENTS_SCRIPT });
  }

  key(executionId: string): string {
    return executionEventsKey(this.prefix, executionId);
  }

  /**
   * Appends events of `subject`'s execution, in order, in one command (a script: atomic, and with
   * auto-pipelining one write for the events of every execution that ends in the same turn), to its stream and
   * the platform's; after a terminal event the execution's stream expires in a week. (Requests waiting for the
   * end are woken by Postgres, see EXECUTION_FINISHED_CHANNEL.) Returns the id of the last event.
   */
  async append(subject: ExecutionSubject, events: ExecutionEvent | ExecutionEvent[]): Promise<string> {
    const list = Array.isArray(events) ? events : [events];
    const terminal = list.some((event) => TERMINAL_EVENT_TYPES.has(event.type));
    const args: (string | number)[] = [
      this.key(subject.executionId),
      platformEventsStream(this.prefix),
      terminal ? FINISHED_STREAM_TTL_SECONDS : 0,
      this.historyLength,
      subject.skill,
      subject.sessionId ?? '',
      subject.executionId,
    ];
    for (const event of list) args.push(JSON.stringify(event), platformTypeOf(event) ?? '');
    return (await (this.redis as unknown as Record<typeof APPEND_EVENTS_COMMAND, (...args: unknown[]) => Promise<unknown>>)[
      APPEND_EVENTS_COMMAND
    ](...args)) as string;
  }

  /**
   * Appends a `log` event unless the execution already has MAX_LOG_EVENTS_PER_EXECUTION of them; the
   * first one over the limit is replaced by a notice that later lines are dropped. Returns whether
   * later lines are still kept.
   */
  async appendLog(executionId: string, event: ExecutionLogEvent): Promise<boolean> {
    const notice: ExecutionLogEvent = {
      type: 'log',
      at: event.at,
      level: 'warning',
      message: `Log limit reached: an execution keeps at most ${MAX_LOG_EVENTS_PER_EXECUTION} log lines; later ones are dropped`,
    };
    const kept = await this.redis.eval(
      APPEND_LOG_SCRIPT,
      2,
      this.key(executionId),
      executionLogCountKey(this.prefix, executionId),
      MAX_LOG_EVENTS_PER_EXECUTION,
      JSON.stringify(event),
      JSON.stringify(notice),
      FINISHED_STREAM_TTL_SECONDS,
    );
    return kept === 1;
  }

  /** One attempt's log lines as `log` events: stops sending once the execution's limit is reached. */
  logWriter(executionId: string): (level: string, message: string, fields?: Record<string, unknown>) => Promise<void> {
    let sent = 0;
    let open = true;
    return async (level, message, fields) => {
      // Counted here too, so a burst of lines costs at most one round trip each up to the limit.
      if (!open || sent > MAX_LOG_EVENTS_PER_EXECUTION) return;
      sent++;
      if (!(await this.appendLog(executionId, logEventOf(level, message, fields)))) open = false;
    };
  }

  /**
   * Events after `afterId` ('0' = from the beginning), waiting up to `blockMs` for new ones (0 = do not wait) on a
   * follower's `reads` (SharedStreamReads); without them, at once on this log's connection.
   */
  async read(executionId: string, afterId: string, blockMs: number, reads?: StreamReads): Promise<StoredExecutionEvent[]> {
    const key = this.key(executionId);
    const entries = reads ? await reads.read(key, afterId, 100, blockMs) : await readStreamNow(this.redis, key, afterId, 100);
    return entries.map(([id, fields]) => ({ id, event: JSON.parse(fields[1] as string) as ExecutionEvent }));
  }
}
