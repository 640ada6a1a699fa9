import { describe, expect, it } from '@jest/globals';
import type { RunContract } from '#contracts/index.js';
import {
  RetryLater,
  type BatchedExecutionWrites,
  type ExecutionEvent,
  type ExecutionRecord,
  type ExecutionsRepository,
} from '#executions/index.js';
import { loadExecutorConfig } from '../config/executor-config.js';
import type { AttemptHooks } from '../hooks/attempt-hooks.js';
import type { ExecutorMetrics } from '../metrics/executor-metrics.js';
import type { HandlerOutcome } from '../scripts/script-tool-runner.js';
import { AttemptConclusion } from './attempt-conclusion.js';
import type { AttemptStart } from './attempt-start.js';
import type { ExecutionEventPublisher } from './execution-event-publisher.js';
import { writeAsIs } from './early-row.js';

const contract = (idempotent: boolean): RunContract => ({
  tool: null,
  workflow: null,
  idempotent,
  retries: 2,
  timeoutSeconds: 10,
  maxRetriesPerGate: 0,
  inputSchema: null,
  outputSchema: null,
});
const execution = { id: 'e-1', attempts: 1, maxAttempts: 3, status: 'RUNNING' } as unknown as ExecutionRecord;
const toolError: HandlerOutcome = { ok: false, error: { code: 'TOOL_ERROR', message: 'adapter failed', details: {} } };

/** AttemptConclusion over fakes that record every write, event and hook call. */
function conclusionWith(options: { finishRefused?: boolean; unstartedRefused?: boolean; current?: Partial<ExecutionRecord> } = {}) {
  const seen = {
    finishes: [] as { status: string; result: unknown; guard: unknown }[],
    unstarted: [] as { status: string; elapsed: number }[],
    retries: [] as { error: unknown; guard: unknown }[],
    published: [] as ExecutionEvent[],
    held: [] as ExecutionEvent[],
    dropped: 0,
    errors: [] as unknown[],
    delivered: [] as ExecutionRecord[],
    concluded: 0,
  };
  const writes = {
    finish: async (_id: string, status: string, result: unknown, guard: unknown) => {
      seen.finishes.push({ status, result, guard });
      return options.finishRefused ? null : ({ ...execution, status, durationMs: 42 } as ExecutionRecord);
    },
    finishUnstarted: async (_id: string, status: string, _result: unknown, elapsed: number) => {
      seen.unstarted.push({ status, elapsed });
      return options.unstartedRefused ? null : ({ ...execution, status, durationMs: 7 } as ExecutionRecord);
    },
  } as unknown as BatchedExecutionWrites;
  const executions = {
    endAttemptForRetry: async (_id: string, error: unknown, guard: unknown) => {
      seen.retries.push({ error, guard });
      return true;
    },
    findById: async () => ({ ...execution, ...options.current }) as ExecutionRecord,
  } as unknown as ExecutionsRepository;
  const events = {
    publish: async (_id: string, event: ExecutionEvent) => void seen.published.push(event),
    hold: (_id: string, event: ExecutionEvent) => void seen.held.push(event),
    drop: () => void seen.dropped++,
  } as unknown as ExecutionEventPublisher;
  const metrics = { concluded: () => void seen.concluded++, retried: () => undefined } as unknown as ExecutorMetrics;
  const config = loadExecutorConfig({ RETRY_BASE_MS: '100', RETRY_MAX_MS: '400' });
  return { conclusion: new AttemptConclusion(executions, writes, events, metrics, config), seen, hooks: hooksRecording(seen) };
}

/** The attempt's hooks: none that redact or annotate unless asked; on_error and post_delivery recorded. */
function hooksRecording(
  seen: { errors: unknown[]; delivered: ExecutionRecord[] },
  options: { metadata?: Record<string, unknown>; redactedInput?: Record<string, unknown> } = {},
): AttemptHooks {
  return {
    metadata: options.metadata,
    onError: async (error: unknown) => void seen.errors.push(error),
    postDelivery: async (final: ExecutionRecord) => void seen.delivered.push(final),
    stored: (output: Record<string, unknown> | undefined) => ({
      ...(options.redactedInput ? { input: options.redactedInput } : {}),
      ...(output ? { output } : {}),
    }),
  } as unknown as AttemptHooks;
}

/** A start as the runner holds it: written (attempt 2 here) or deferred and never needed. */
function start(kind: 'written' | 'untouched', written: ExecutionRecord | null = { ...execution, attempts: 2 } as ExecutionRecord) {
  const fake = {
    untouched: kind === 'untouched',
    concluding: false,
    elapsedMs: 5,
    stopTimer: () => undefined,
    ensure: async () => written,
    rowWrite: writeAsIs,
    markConcluding: () => void (fake.concluding = true),
  };
  return fake as unknown as AttemptStart;
}

describe('AttemptConclusion', () => {
  it('writes a success against the written start, then announces it with the stored duration', async () => {
    const { conclusion, seen, hooks } = conclusionWith();
    await conclusion.outcome(execution, contract(true), { ok: true, output: { n: 1 } }, start('written'), hooks);
    expect(seen.finishes).toEqual([{ status: 'SUCCEEDED', result: { output: { n: 1 } }, guard: { attempt: 2 } }]);
    expect(seen.published).toMatchObject([{ type: 'succeeded', attempt: 2, duration_ms: 42 }]);
    expect(seen.concluded).toBe(1);
  });

  it('writes start and end of a run done before its start was needed in one statement, with both events', async () => {
    const { conclusion, seen, hooks } = conclusionWith();
    await conclusion.outcome(execution, contract(true), { ok: true, output: { n: 1 } }, start('untouched'), hooks);
    expect(seen.unstarted).toEqual([{ status: 'SUCCEEDED', elapsed: 5 }]);
    expect(seen.finishes).toEqual([]);
    expect(seen.held).toMatchObject([{ type: 'started' }]);
    expect(seen.published).toMatchObject([{ type: 'succeeded', duration_ms: 7 }]);
  });

  it('drops a deferred run whose execution was cancelled meanwhile, and concludes the cancellation', async () => {
    const { conclusion, seen, hooks } = conclusionWith({
      unstartedRefused: true,
      current: { status: 'QUEUED', attemptRunning: false, cancelRequestedAt: new Date() },
    });
    await conclusion.outcome(execution, contract(true), { ok: true, output: { n: 1 } }, start('untouched'), hooks);
    expect(seen.dropped).toBe(1);
    expect(seen.finishes).toMatchObject([{ status: 'CANCELLED' }]);
    expect(seen.published).toMatchObject([{ type: 'cancelled', reason: 'cancelled before it started' }]);
  });

  it('ends a retryable failure of an idempotent skill for a retry: the attempt end written, then RetryLater', async () => {
    const { conclusion, seen, hooks } = conclusionWith();
    const retried = conclusion.outcome(execution, contract(true), toolError, start('written'), hooks);
    await expect(retried).rejects.toBeInstanceOf(RetryLater);
    expect(seen.retries).toEqual([{ error: toolError.ok ? null : toolError.error, guard: { attempt: 2 } }]);
    expect(seen.published).toMatchObject([{ type: 'attempt_failed', attempt: 2, error: { code: 'TOOL_ERROR' } }]);
    expect(seen.errors).toHaveLength(1);
    expect(seen.finishes).toEqual([]);
  });

  it('fails for good what is not retried: a non-idempotent skill, or the last attempt', async () => {
    const once = conclusionWith();
    await once.conclusion.outcome(execution, contract(false), toolError, start('written'), once.hooks);
    expect(once.seen.finishes).toMatchObject([{ status: 'FAILED', guard: { attempt: 2 } }]);
    expect(once.seen.published).toMatchObject([{ type: 'failed', error: { code: 'TOOL_ERROR' } }]);

    const last = conclusionWith();
    await last.conclusion.outcome(
      execution,
      contract(true),
      toolError,
      start('written', { ...execution, attempts: 3 } as ExecutionRecord),
      last.hooks,
    );
    expect(last.seen.retries).toEqual([]);
    expect(last.seen.finishes).toMatchObject([{ status: 'FAILED', guard: { attempt: 3 } }]);
  });

  it('ends a cancelled attempt CANCELLED with the reason', async () => {
    const { conclusion, seen, hooks } = conclusionWith();
    const cancelled: HandlerOutcome = { ok: false, error: { code: 'CANCELLED', message: 'cancelled by the caller', details: {} } };
    await conclusion.outcome(execution, contract(true), cancelled, start('written'), hooks);
    expect(seen.finishes).toMatchObject([{ status: 'CANCELLED' }]);
    expect(seen.published).toMatchObject([{ type: 'cancelled', reason: 'cancelled by the caller' }]);
  });

  it("stores what the hooks leave of input and output, puts their metadata on the end's event, then runs post_delivery", async () => {
    const { conclusion, seen } = conclusionWith();
    const hooks = hooksRecording(seen, { metadata: { team: 'cae' }, redactedInput: { kept: true } });
    await conclusion.outcome(execution, contract(true), { ok: true, output: { n: 1 } }, start('written'), hooks);
    expect(seen.finishes).toEqual([{ status: 'SUCCEEDED', result: { input: { kept: true }, output: { n: 1 } }, guard: { attempt: 2 } }]);
    expect(seen.published).toMatchObject([{ type: 'succeeded', metadata: { team: 'cae' } }]);
    expect(seen.delivered).toMatchObject([{ status: 'SUCCEEDED' }]);

    const failing = conclusionWith();
    await failing.conclusion.outcome(
      execution,
      contract(false),
      toolError,
      start('written'),
      hooksRecording(failing.seen, { redactedInput: {} }),
    );
    expect(failing.seen.finishes).toMatchObject([{ status: 'FAILED', result: { input: {}, error: { code: 'TOOL_ERROR' } } }]);
    expect(failing.seen.errors).toHaveLength(1);
    expect(failing.seen.delivered).toHaveLength(1);
  });

  it('marks the attempt concluding before it writes anything, whatever the outcome', async () => {
    const outcomes: HandlerOutcome[] = [{ ok: true, output: { n: 1 } }, toolError];
    for (const outcome of outcomes) {
      for (const kind of ['written', 'untouched'] as const) {
        const attempt = start(kind);
        const { conclusion, hooks } = conclusionWith();
        const writesSeenConcluding: boolean[] = [];
        const ensure = attempt.ensure.bind(attempt);
        (attempt as { ensure: AttemptStart['ensure'] }).ensure = () => (writesSeenConcluding.push(attempt.concluding), ensure());
        (attempt as { rowWrite: AttemptStart['rowWrite'] }).rowWrite = (write) => (writesSeenConcluding.push(attempt.concluding), write());
        await conclusion.outcome(execution, contract(true), outcome, attempt, hooks).catch((error: unknown) => {
          if (!(error instanceof RetryLater)) throw error;
        });
        expect(writesSeenConcluding.length).toBeGreaterThan(0);
        expect(writesSeenConcluding.every(Boolean)).toBe(true);
      }
    }
  });

  it('publishes nothing of its own when someone else decided first (the guarded write is refused)', async () => {
    const { conclusion, seen, hooks } = conclusionWith({ finishRefused: true });
    await conclusion.outcome(execution, contract(false), toolError, start('written'), hooks);
    expect(seen.finishes).toHaveLength(1);
    expect(seen.published).toEqual([]);
    expect(seen.dropped).toBe(1);
    expect(seen.concluded).toBe(0);
    expect(seen.delivered).toEqual([]);
  });
});
