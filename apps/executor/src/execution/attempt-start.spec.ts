import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { ExecutionRecord } from '#executions/index.js';
import { AttemptStart } from './attempt-start.js';

const record = { id: 'e1', attempts: 1 } as ExecutionRecord;

function deferred(write: () => Promise<ExecutionRecord | null>, deferMs = 100) {
  const onWritten = jest.fn<(record: ExecutionRecord) => void>();
  const onRefused = jest.fn<() => void>();
  const start = AttemptStart.deferred({ write, deferMs, onWritten, onRefused });
  return { start, onWritten, onRefused };
}

describe('AttemptStart', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('a written start is durable and never writes again', async () => {
    const start = AttemptStart.written(record);
    expect(start.durable).toBe(true);
    expect(start.untouched).toBe(false);
    expect(await start.ensure()).toBe(record);
  });

  it('writes a deferred start once, however many callers ask at once', async () => {
    const write = jest.fn(() => Promise.resolve(record));
    const { start, onWritten, onRefused } = deferred(write);
    expect(start.untouched).toBe(true);
    expect(start.durable).toBe(false);
    const answers = await Promise.all([start.ensure(), start.ensure(), start.ensure()]);
    expect(answers).toEqual([record, record, record]);
    expect(write).toHaveBeenCalledTimes(1);
    expect(onWritten).toHaveBeenCalledWith(record);
    expect(onRefused).not.toHaveBeenCalled();
    expect(start.durable).toBe(true);
    expect(start.untouched).toBe(false);
  });

  it('writes the start by itself once the defer window has passed', async () => {
    jest.useFakeTimers();
    const write = jest.fn(() => Promise.resolve(record));
    const { start, onWritten } = deferred(write, 100);
    jest.advanceTimersByTime(99);
    expect(write).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(write).toHaveBeenCalledTimes(1);
    await Promise.resolve();
    await Promise.resolve();
    expect(onWritten).toHaveBeenCalledTimes(1);
    expect(start.durable).toBe(true);
  });

  it('writes nothing once stopped: a run that ended keeps its one-statement end', () => {
    jest.useFakeTimers();
    const write = jest.fn(() => Promise.resolve(record));
    const { start } = deferred(write, 100);
    start.stopTimer();
    jest.advanceTimersByTime(1000);
    expect(write).not.toHaveBeenCalled();
    expect(start.untouched).toBe(true);
  });

  it('reports a start the database refused (cancelled meanwhile): null, and onRefused to stop the run', async () => {
    const { start, onWritten, onRefused } = deferred(() => Promise.resolve(null));
    expect(await start.ensure()).toBeNull();
    expect(onRefused).toHaveBeenCalledTimes(1);
    expect(onWritten).not.toHaveBeenCalled();
    expect(start.durable).toBe(false);
    expect(await start.ensure()).toBeNull();
    expect(onRefused).toHaveBeenCalledTimes(1);
  });

  it('tries the write again after a failure (the database was down)', async () => {
    const write = jest
      .fn<() => Promise<ExecutionRecord | null>>()
      .mockRejectedValueOnce(new Error('connection refused'))
      .mockResolvedValueOnce(record);
    const { start } = deferred(write);
    await expect(start.ensure()).rejects.toThrow('connection refused');
    expect(start.durable).toBe(false);
    expect(await start.ensure()).toBe(record);
    expect(write).toHaveBeenCalledTimes(2);
  });
});
