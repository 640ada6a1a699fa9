// bench/events: the cost of writing an execution's events to the platform's stream too (issue 29 §4), on the
// executor's hot path. In one run, against the same Redis, with the executor's connection options
// (auto-pipelining): the write before the platform stream existed (one XADD per event on the execution's stream,
// a one-key script for an end) against ExecutionEventLog.append (one script per batch, each event on both
// streams, the platform's trimmed with MAXLEN ~). Both sequential (one event at a time) and as the executor
// publishes under load (many executions' events in flight at once).
// Usage: npm run build && node bench/events/append.mjs   Env: BENCH_EVENTS (5000), BENCH_IN_FLIGHT (64).
import { Redis } from 'ioredis';
import { ExecutionEventLog } from '#executions/execution-events.js';
import { deleteRedisKeys } from '../support/redis-cleanup.mjs';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 64);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `bench-events-${process.pid}`;
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3, enableAutoPipelining: true });

/** The write as it was: XADD for an event, a one-key script (append + expire) for an end. */
const OLD_SCRIPT = `
local id
for i = 2, #ARGV do id = redis.call('XADD', KEYS[1], '*', 'event', ARGV[i]) end
local ttl = tonumber(ARGV[1])
if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
return id`;
redis.defineCommand('benchOldAppend', { numberOfKeys: 1, lua: OLD_SCRIPT });
async function oldAppend(executionId, events) {
  const key = `${prefix}:old:execution:${executionId}:events`;
  const terminal = events.some((event) => event.type === 'succeeded');
  if (events.length === 1 && !terminal) return redis.xadd(key, '*', 'event', JSON.stringify(events[0]));
  return redis.benchOldAppend(key, terminal ? 604800 : 0, ...events.map((event) => JSON.stringify(event)));
}

const log = new ExecutionEventLog(redis, `${prefix}:new`);
const newAppend = (executionId, events) => log.append({ executionId, skill: 'quick_noop', sessionId: 'bench' }, events);

/** What one short execution publishes: a tool call, then 'started' and its end together (EVENT_HOLD_MS). */
function executionEvents(n) {
  const at = new Date().toISOString();
  return [
    [{ type: 'tool_invoked', at, tool_id: 'spice.simulate' }],
    [{ type: 'tool_completed', at, tool_id: 'spice.simulate', duration_ms: 3, ok: true }],
    [
      { type: 'started', at, attempt: 1 },
      { type: 'succeeded', at, attempt: 1, duration_ms: n % 50 },
    ],
  ];
}

async function measure(append, inFlight) {
  const executions = Math.ceil(EVENTS / 4);
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < executions) {
        const n = next++;
        for (const batch of executionEvents(n)) await append(`e${n}`, batch);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return (executions * 4) / seconds;
}

try {
  await redis.ping();
  for (const [label, inFlight] of [
    ['sequential (1 in flight)', 1],
    [`under load (${IN_FLIGHT} executions in flight)`, IN_FLIGHT],
  ]) {
    await measure(oldAppend, inFlight); // warm-up, both
    await measure(newAppend, inFlight);
    const rounds = [];
    for (let round = 0; round < 3; round++) rounds.push([await measure(oldAppend, inFlight), await measure(newAppend, inFlight)]);
    const old = Math.max(...rounds.map(([before]) => before));
    const now = Math.max(...rounds.map(([, after]) => after));
    console.log(
      `${label}: before ${old.toFixed(0)} events/s, with the platform stream ${now.toFixed(0)} events/s — ratio ${(now / old).toFixed(2)} (best of 3 each)`,
    );
  }
  const length = await redis.xlen(`${prefix}:new:events`);
  console.log(`platform stream length after the run: ${length} (EVENTS_HISTORY_MAX 10000, trimmed with MAXLEN ~)`);
} finally {
  await deleteRedisKeys(REDIS_URL, prefix).catch(() => undefined);
  redis.disconnect();
}
