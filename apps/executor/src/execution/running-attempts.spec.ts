import { describe, expect, it } from '@jest/globals';
import type { ExecutionRecord } from '#executions/index.js';
import { AttemptStart } from './attempt-start.js';
import { RunningAttempts } from './running-attempts.js';

const written = (attempts: number) => AttemptStart.written({ id: 'x', attempts } as ExecutionRecord);
const deferred = () => AttemptStart.deferred({ write: async () => null, deferMs: 60_000, onWritten: () => {}, onRefused: () => {} });

describe('RunningAttempts', () => {
  it('heartbeats only the attempts whose start is written, with their attempt number', () => {
    const running = new RunningAttempts();
    const later = deferred();
    running.hold('a', { attempt: 2, controller: new AbortController(), start: written(2) });
    running.hold('b', { attempt: 1, controller: new AbortController(), start: later });
    later.stopTimer();
    expect(running.ids()).toEqual(['a', 'b']);
    expect(running.heartbeated()).toEqual([{ id: 'a', attempt: 2 }]);
  });

  it('leaves an attempt whose handler is done to its conclusion when a heartbeat finds its row no longer running', () => {
    // The row may have stopped running because this attempt's own end was just committed: no takeover to stop.
    const running = new RunningAttempts();
    const controller = new AbortController();
    const attempt = written(1);
    running.hold('a', { attempt: 1, controller, start: attempt });
    attempt.markConcluding();
    running.abandon(['a']);
    expect(controller.signal.aborted).toBe(false);
    expect(running.heartbeated()).toEqual([{ id: 'a', attempt: 1 }]);
  });

  it('a release of an earlier attempt leaves the later attempt of the same execution held', () => {
    const running = new RunningAttempts();
    const first = new AbortController();
    const second = new AbortController();
    running.hold('a', { attempt: 1, controller: first, start: written(1) });
    running.hold('a', { attempt: 2, controller: second, start: written(2) });
    running.release('a', first);
    expect(running.heartbeated()).toEqual([{ id: 'a', attempt: 2 }]);
    running.release('a', second);
    expect(running.ids()).toEqual([]);
  });

  it('cancels and abandons by aborting the attempt, and only attempts of this process', () => {
    const running = new RunningAttempts();
    const controller = new AbortController();
    running.hold('a', { attempt: 1, controller, start: written(1) });
    expect(running.cancel('elsewhere')).toBe(false);
    running.abandon(['elsewhere']);
    expect(controller.signal.aborted).toBe(false);
    expect(running.cancel('a')).toBe(true);
    expect(controller.signal.aborted).toBe(true);
    const other = new AbortController();
    running.hold('b', { attempt: 3, controller: other, start: written(3) });
    running.abandon(['b']);
    expect(other.signal.aborted).toBe(true);
  });
});
