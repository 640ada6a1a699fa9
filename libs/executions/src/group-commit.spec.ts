import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { GroupCommit } from './group-commit.js';

/** A fake statement: records each flush and settles it when the test says so. */
function fakeWrites() {
  const flushes: { requests: string[]; settle: (error?: Error) => void }[] = [];
  const write = (requests: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      flushes.push({ requests, settle: (error) => (error ? reject(error) : resolve(requests.map((request) => `done:${request}`))) });
    });
  return { flushes, write };
}

/** Lets pending promise callbacks run (fake timers do not advance promises). */
const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('GroupCommit', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('writes the requests of one turn of the event loop in one flush when nothing is in flight', async () => {
    const { flushes, write } = fakeWrites();
    const commit = new GroupCommit(write, { maxBatch: 10, windowMs: 2 });
    const results = ['a', 'b', 'c'].map((request) => commit.submit(request));
    expect(flushes).toHaveLength(0);
    jest.advanceTimersByTime(0);
    expect(flushes.map((flush) => flush.requests)).toEqual([['a', 'b', 'c']]);
    flushes[0]!.settle();
    expect(await Promise.all(results)).toEqual(['done:a', 'done:b', 'done:c']);
  });

  it('does not answer a caller before its flush has returned', async () => {
    const { flushes, write } = fakeWrites();
    const commit = new GroupCommit(write, { maxBatch: 10, windowMs: 2 });
    let answered = false;
    void commit.submit('a').then(() => (answered = true));
    jest.advanceTimersByTime(10);
    await settle();
    expect(answered).toBe(false);
    flushes[0]!.settle();
    await settle();
    expect(answered).toBe(true);
  });

  it('while a flush is in flight, gathers new requests and flushes them when the window ends, not later', async () => {
    const { flushes, write } = fakeWrites();
    const commit = new GroupCommit(write, { maxBatch: 10, windowMs: 2 });
    void commit.submit('a');
    jest.advanceTimersByTime(0);
    void commit.submit('b');
    void commit.submit('c');
    jest.advanceTimersByTime(1);
    expect(flushes).toHaveLength(1);
    // The first flush is still in flight: the window alone decides.
    jest.advanceTimersByTime(1);
    expect(flushes.map((flush) => flush.requests)).toEqual([['a'], ['b', 'c']]);
    expect(commit.flushing).toBe(2);
  });

  it('flushes the gathered requests as soon as the flush in flight returns, before the window ends', async () => {
    const { flushes, write } = fakeWrites();
    const commit = new GroupCommit(write, { maxBatch: 10, windowMs: 50 });
    void commit.submit('a');
    jest.advanceTimersByTime(0);
    void commit.submit('b');
    flushes[0]!.settle();
    await settle();
    jest.advanceTimersByTime(0);
    expect(flushes.map((flush) => flush.requests)).toEqual([['a'], ['b']]);
  });

  it('flushes a full batch at once', () => {
    const { flushes, write } = fakeWrites();
    const commit = new GroupCommit(write, { maxBatch: 2, windowMs: 50 });
    for (const request of ['a', 'b', 'c', 'd', 'e']) void commit.submit(request);
    expect(flushes.map((flush) => flush.requests)).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    jest.advanceTimersByTime(50);
    expect(flushes.map((flush) => flush.requests)).toContainEqual(['e']);
  });

  it('never puts two requests with one key in one flush; the later one goes next, in order', async () => {
    const { flushes, write } = fakeWrites();
    const commit = new GroupCommit(write, { maxBatch: 10, windowMs: 2, keyOf: (request: string) => request.split(':')[0] as string });
    for (const request of ['x:1', 'y:1', 'x:2', 'z:1', 'x:3']) void commit.submit(request);
    jest.advanceTimersByTime(0);
    expect(flushes.map((flush) => flush.requests)).toEqual([['x:1', 'y:1', 'z:1']]);
    jest.advanceTimersByTime(2);
    jest.advanceTimersByTime(2);
    expect(flushes.map((flush) => flush.requests)).toEqual([['x:1', 'y:1', 'z:1'], ['x:2'], ['x:3']]);
  });

  it('a failed flush fails every caller in it', async () => {
    const { flushes, write } = fakeWrites();
    const commit = new GroupCommit(write, { maxBatch: 10, windowMs: 2, isolate: () => false });
    const results = ['a', 'b'].map((request) => commit.submit(request));
    jest.advanceTimersByTime(0);
    flushes[0]!.settle(new Error('connection terminated'));
    expect(await Promise.allSettled(results)).toEqual([
      { status: 'rejected', reason: new Error('connection terminated') },
      { status: 'rejected', reason: new Error('connection terminated') },
    ]);
  });

  it('after an error that may be one row’s, writes each request alone so only that caller fails', async () => {
    const { flushes, write } = fakeWrites();
    const commit = new GroupCommit(write, { maxBatch: 10, windowMs: 2, isolate: () => true });
    const results = ['a', 'bad', 'c'].map((request) => commit.submit(request));
    jest.advanceTimersByTime(0);
    flushes[0]!.settle(new Error('invalid input syntax'));
    await settle();
    expect(flushes.slice(1).map((flush) => flush.requests)).toEqual([['a'], ['bad'], ['c']]);
    for (const flush of flushes.slice(1)) flush.settle(flush.requests[0] === 'bad' ? new Error('invalid input syntax') : undefined);
    expect((await Promise.allSettled(results)).map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
