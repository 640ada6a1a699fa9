import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { ExecutionEvent, ExecutionEventLog, ExecutionSubject, PlatformEventLog } from '#executions/index.js';
import type { ExecutorConfig } from '../config/executor-config.js';
import { ExecutionEventPublisher } from './execution-event-publisher.js';

const started: ExecutionEvent = { type: 'started', at: '2026-12-03T06:00:00Z', attempt: 1 };
const succeeded: ExecutionEvent = { type: 'succeeded', at: '2026-12-03T06:00:01Z', attempt: 1, duration_ms: 3 };

/** The publisher over a fake log; `append` records the execution id, `subjects` whose each append said it was. */
function publisher(append = jest.fn(async (_id: string, _events: ExecutionEvent[]) => '1-0')) {
  const subjects: ExecutionSubject[] = [];
  const platform = jest.fn(async (_entry: unknown) => '1-0');
  const log = {
    append: (subject: ExecutionSubject, events: ExecutionEvent[]) => {
      subjects.push(subject);
      return append(subject.executionId, events);
    },
  } as unknown as ExecutionEventLog;
  const platformLog = { append: platform } as unknown as PlatformEventLog;
  return { append, subjects, platform, events: new ExecutionEventPublisher(log, platformLog, { EVENT_HOLD_MS: 20 } as ExecutorConfig) };
}

describe('ExecutionEventPublisher', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('sends a held event together with the next one, in order, in one append', async () => {
    const { append, events } = publisher();
    events.hold('e1', started);
    await events.publish('e1', succeeded);
    expect(append.mock.calls).toEqual([['e1', [started, succeeded]]]);
  });

  it('sends a held event alone once the hold has passed', async () => {
    jest.useFakeTimers();
    const { append, events } = publisher();
    events.hold('e1', started);
    jest.advanceTimersByTime(19);
    expect(append).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(append.mock.calls).toEqual([['e1', [started]]]);
    await events.publish('e1', succeeded);
    expect(append.mock.calls[1]).toEqual(['e1', [succeeded]]);
  });

  it('flushes before a line that must follow, drops what someone else superseded, keeps executions apart', async () => {
    const { append, events } = publisher();
    events.hold('e1', started);
    events.hold('e2', started);
    await events.flush('e1');
    events.drop('e2');
    await events.flush('e2');
    expect(append.mock.calls).toEqual([['e1', [started]]]);
  });

  it("publishes a tracked execution's events with its skill and session, and a post-delivery event on the platform stream only", async () => {
    const { subjects, platform, append, events } = publisher();
    events.track({ id: 'e1', skillName: 'compare_results', sessionId: 's1' });
    await events.publish('e1', succeeded);
    expect(subjects).toEqual([{ executionId: 'e1', skill: 'compare_results', sessionId: 's1' }]);
    const failed: ExecutionEvent = {
      type: 'hook_failed',
      at: succeeded.at,
      hook: 'notify',
      phase: 'post_delivery',
      error: 'down',
      fail_closed: false,
    };
    await events.publishPlatformOnly('e1', failed);
    expect(append).toHaveBeenCalledTimes(1);
    expect(platform.mock.calls).toEqual([
      [{ type: 'hook.failed', executionId: 'e1', skill: 'compare_results', sessionId: 's1', data: failed }],
    ]);
  });

  it('logs a failed append instead of throwing (the row is the truth)', async () => {
    const { events } = publisher(jest.fn(async () => Promise.reject(new Error('redis down'))));
    await expect(events.publish('e1', succeeded)).resolves.toBeUndefined();
  });
});
