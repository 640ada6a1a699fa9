import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { EXECUTION_QUEUE, ExecutionQueue, cancelChannel, type ExecutionJob } from '#executions/index.js';
import { obliterateQueue } from '../support/executions.js';

/** The producer side of the execution queue on the machine's Redis (libs/executions/src/queue/execution-queue.ts). */
describe('ExecutionQueue on Redis', () => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `test-queue-${process.pid}-${Date.now()}`;
  let queue: ExecutionQueue;
  let inspect: Queue<ExecutionJob>;

  beforeAll(async () => {
    queue = ExecutionQueue.connect({ mode: 'single', url }, prefix);
    inspect = new Queue<ExecutionJob>(EXECUTION_QUEUE, { connection: { url }, prefix });
    await inspect.waitUntilReady();
  });

  afterAll(async () => {
    await queue.close();
    await inspect.close();
    await obliterateQueue(prefix);
  });

  it('enqueues one job per execution id, however often it is asked', async () => {
    const id = randomUUID();
    await queue.enqueue(id);
    await queue.enqueue(id);
    expect((await inspect.getJob(id))?.data).toEqual({ executionId: id });
    expect(await inspect.getJobCountByTypes('waiting')).toBe(1);
    expect(queue.unavailableReason()).toBeNull();
  });

  it('re-enqueues an execution whose job vanished, and leaves a pending one alone', async () => {
    const id = randomUUID();
    await queue.enqueue(id);
    expect(await queue.enqueueIfGone(id)).toBeNull();
    await inspect.remove(id);
    expect(await inspect.getJob(id)).toBeUndefined();
    expect(await queue.enqueueIfGone(id)).toBe('missing');
    expect(await (await inspect.getJob(id))?.getState()).toBe('waiting');
  });

  it("puts a takeover's next attempt on a job of its own, once per lost attempt", async () => {
    const id = randomUUID();
    await queue.enqueue(id);
    await queue.enqueueTakeover(id, 1);
    await queue.enqueueTakeover(id, 1);
    expect(await inspect.getJob(`${id}-takeover-1`)).toBeDefined();
    const jobs = await inspect.getJobs(['waiting']);
    expect(
      jobs
        .filter((job) => job.data.executionId === id)
        .map((job) => job.id)
        .sort(),
    ).toEqual([id, `${id}-takeover-1`].sort());
  });

  it('drops a queued job, and announces cancellations on the cancel channel', async () => {
    const id = randomUUID();
    await queue.enqueue(id);
    await queue.remove(id);
    expect(await inspect.getJob(id)).toBeUndefined();
    await queue.remove(id); // nothing left to drop: no error

    const subscriber = new Redis(url);
    try {
      const heard = new Promise<string>((resolve) => subscriber.on('message', (_channel, message: string) => resolve(message)));
      await subscriber.subscribe(cancelChannel(prefix));
      await queue.announceCancel(id);
      expect(await heard).toBe(id);
    } finally {
      subscriber.disconnect();
    }
  });
});
