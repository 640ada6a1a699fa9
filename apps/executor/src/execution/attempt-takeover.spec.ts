import { describe, expect, it, jest } from '@jest/globals';
import type { BatchedExecutionWrites, ExecutionRecord, ExecutionsRepository } from '#executions/index.js';
import type { ExecutorConfig } from '../config/executor-config.js';
import type { ExecutorHooks } from '../hooks/executor-hooks.js';
import type { ExecutorMetrics } from '../metrics/executor-metrics.js';
import { AttemptStart } from './attempt-start.js';
import { AttemptTakeover } from './attempt-takeover.js';
import { RunningAttempts } from './running-attempts.js';
import type { ExecutionEventPublisher } from './execution-event-publisher.js';

const lostAttempt = { id: 'e1', attempts: 2, maxAttempts: 3, skillName: 'demo', tool: null } as ExecutionRecord;

function takeover(
  outcomes: { finish?: ExecutionRecord | null; release?: ExecutionRecord | null; storedInput?: Record<string, unknown> },
  running = new RunningAttempts(),
) {
  const finish = jest.fn(async (..._args: unknown[]) => outcomes.finish ?? null);
  const releaseLostAttempt = jest.fn(async (..._args: unknown[]) => outcomes.release ?? null);
  const publish = jest.fn(async (..._args: unknown[]) => undefined);
  const subject = new AttemptTakeover(
    { releaseLostAttempt } as unknown as ExecutionsRepository,
    { finish } as unknown as BatchedExecutionWrites,
    { publish, track: () => undefined } as unknown as ExecutionEventPublisher,
    { takenOver: () => undefined, concluded: () => undefined } as unknown as ExecutorMetrics,
    running,
    { storedInputOf: async () => outcomes.storedInput } as unknown as ExecutorHooks,
    { LOST_AFTER_MS: 3000 } as ExecutorConfig,
  );
  return { subject, finish, releaseLostAttempt, publish };
}

const heldHere = (attempt: number) => {
  const running = new RunningAttempts();
  running.hold('e1', { attempt, controller: new AbortController(), start: AttemptStart.written({ ...lostAttempt, attempts: attempt }) });
  return running;
};

describe('AttemptTakeover', () => {
  it('fails a non-idempotent execution WORKER_LOST, only while the heartbeat is still stale', async () => {
    const { subject, finish, releaseLostAttempt, publish } = takeover({ finish: { ...lostAttempt, status: 'FAILED' } });
    expect(await subject.takeOver(lostAttempt, false)).toBe('failed');
    expect(finish).toHaveBeenCalledWith(
      'e1',
      'FAILED',
      { error: expect.objectContaining({ code: 'WORKER_LOST', details: { attempt: 2 } }) },
      { attempt: 2, staleForMs: 3000 },
    );
    expect(releaseLostAttempt).not.toHaveBeenCalled();
    expect(publish).toHaveBeenCalledWith('e1', expect.objectContaining({ type: 'failed', attempt: 2 }));
  });

  it('keeps the input as the redact hooks leave it when it fails the execution', async () => {
    const { subject, finish } = takeover({ finish: { ...lostAttempt, status: 'FAILED' }, storedInput: { kept: 1 } });
    expect(await subject.takeOver(lostAttempt, false)).toBe('failed');
    expect(finish).toHaveBeenCalledWith('e1', 'FAILED', expect.objectContaining({ input: { kept: 1 } }), expect.anything());
  });

  it('fails an idempotent execution that has no attempt left', async () => {
    const { subject, releaseLostAttempt } = takeover({ finish: { ...lostAttempt, status: 'FAILED' } });
    expect(await subject.takeOver({ ...lostAttempt, attempts: 3 }, true)).toBe('failed');
    expect(releaseLostAttempt).not.toHaveBeenCalled();
  });

  it('releases an idempotent execution with attempts left for another attempt', async () => {
    const { subject, finish, releaseLostAttempt, publish } = takeover({ release: { ...lostAttempt, status: 'QUEUED' } });
    expect(await subject.takeOver(lostAttempt, true)).toBe('released');
    expect(finish).not.toHaveBeenCalled();
    expect(releaseLostAttempt).toHaveBeenCalledWith('e1', expect.objectContaining({ code: 'WORKER_LOST' }), {
      attempt: 2,
      staleForMs: 3000,
    });
    expect(publish).toHaveBeenCalledWith('e1', expect.objectContaining({ type: 'attempt_failed', next_delay_ms: 0 }));
  });

  it('decides nothing, and publishes nothing, when the database refuses (a live heartbeat landed first)', async () => {
    for (const idempotent of [false, true]) {
      const { subject, publish } = takeover({});
      expect(await subject.takeOver(lostAttempt, idempotent)).toBeNull();
      expect(publish).not.toHaveBeenCalled();
    }
  });

  it('never takes over an attempt this process runs itself: a late heartbeat of a live process is not a death', async () => {
    for (const idempotent of [false, true]) {
      const { subject, finish, releaseLostAttempt, publish } = takeover(
        { finish: { ...lostAttempt, status: 'FAILED' }, release: { ...lostAttempt, status: 'QUEUED' } },
        heldHere(2),
      );
      expect(await subject.takeOver(lostAttempt, idempotent)).toBeNull();
      expect(finish).not.toHaveBeenCalled();
      expect(releaseLostAttempt).not.toHaveBeenCalled();
      expect(publish).not.toHaveBeenCalled();
    }
  });

  it('takes over a stale attempt of an execution this process ran an earlier attempt of', async () => {
    const { subject } = takeover({ finish: { ...lostAttempt, status: 'FAILED' } }, heldHere(1));
    expect(await subject.takeOver(lostAttempt, false)).toBe('failed');
  });
});
