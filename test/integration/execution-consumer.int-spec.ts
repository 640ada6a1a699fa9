import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { EXECUTION_QUEUE, LoneJobWorker, executionJobOptions, type ExecutionJob } from '#executions/index.js';
import { eventually, obliterateQueue } from '../support/executions.js';

/** The consuming side of the execution queue on the machine's Redis (libs/executions/src/queue/execution-consumer.ts). */
describe('LoneJobWorker on Redis', () => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `test-consumer-${process.pid}-${Date.now()}`;
  let queue: Queue<ExecutionJob>;
  const workers: LoneJobWorker[] = [];
  const connections: Redis[] = [];
  /** When each job's delivery began, and how long each runs. */
  const began = new Map<string, number>();
  const runFor = new Map<string, number>();

  beforeAll(async () => {
    queue = new Queue<ExecutionJob>(EXECUTION_QUEUE, { connection: { url }, prefix });
    await queue.waitUntilReady();
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.close()));
    connections.splice(0).forEach((connection) => connection.disconnect());
    await queue.drain(true);
  });

  afterAll(async () => {
    await queue.close();
    await obliterateQueue(prefix);
  });

  /** A worker whose deliveries record their start and run for runFor's time (failing when the id starts with 'f'). */
  async function startWorker(options: { concurrency: number; holdMs: number }, deliveries?: Map<string, number>): Promise<LoneJobWorker> {
    const connection = new Redis(url, { maxRetriesPerRequest: null });
    connections.push(connection);
    const worker = new LoneJobWorker(
      EXECUTION_QUEUE,
      async (job) => {
        const id = job.data.executionId;
        began.set(id, performance.now());
        deliveries?.set(id, (deliveries.get(id) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, runFor.get(id) ?? 0));
        if (id.startsWith('f')) throw new Error(`delivery of ${id} failed`);
      },
      { connection, prefix, concurrency: options.concurrency, autorun: false },
      options.holdMs,
    );
    worker.on('error', () => undefined);
    workers.push(worker);
    void worker.run();
    await worker.waitUntilReady();
    // Let it find the queue empty and wait for jobs.
    await new Promise((resolve) => setTimeout(resolve, 300));
    return worker;
  }

  async function add(id: string, ms = 0): Promise<void> {
    runFor.set(id, ms);
    await queue.add('execute', { executionId: id }, executionJobOptions(id));
  }

  const started = (id: string) => eventually(async () => began.has(id), 5000);
  const finished = (id: string) => eventually(async () => (await queue.getJob(id))?.finishedOn !== undefined, 8000);
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('on an idle worker, fetches the job after a lone one once that one has ended, or once the hold is over', async () => {
    await startWorker({ concurrency: 8, holdMs: 400 });
    // A lone job that runs 150 ms: a job added 50 ms into it is fetched once it has ended.
    const [short, during] = [randomUUID(), randomUUID()];
    await add(short, 150);
    await started(short);
    await sleep(50);
    await add(during);
    await started(during);
    const afterShort = (began.get(during) as number) - (began.get(short) as number);
    expect(afterShort).toBeGreaterThanOrEqual(140);
    expect(afterShort).toBeLessThan(1000);
    await finished(during);
    await sleep(300);
    // A lone job that runs 3 s: the hold ends after 400 ms, and a job added meanwhile starts then.
    const [long, meanwhile] = [randomUUID(), randomUUID()];
    await add(long, 3000);
    await started(long);
    await sleep(50);
    await add(meanwhile);
    await started(meanwhile);
    const afterLong = (began.get(meanwhile) as number) - (began.get(long) as number);
    expect(afterLong).toBeGreaterThanOrEqual(380);
    expect(afterLong).toBeLessThan(2000);
    await finished(long);
    expect(await (await queue.getJob(long))?.getState()).toBe('completed');
  });

  it('holds nothing while another delivery is under way', async () => {
    await startWorker({ concurrency: 8, holdMs: 1500 });
    const [busy, first, second] = [randomUUID(), randomUUID(), randomUUID()];
    await add(busy, 5000);
    await started(busy);
    // Past the hold `busy` had as a lone job, the worker waits for jobs again; the queue is empty, but the worker is
    // not idle, so the job after `first` is fetched at once.
    await sleep(1700);
    await add(first, 1000);
    await started(first);
    await sleep(50);
    await add(second);
    await started(second);
    expect((began.get(second) as number) - (began.get(first) as number)).toBeLessThan(700);
  });

  it('delivers every job of a burst to an idle worker once, and BullMQ settles each as its delivery did', async () => {
    const deliveries = new Map<string, number>();
    await startWorker({ concurrency: 4, holdMs: 400 }, deliveries);
    const ids = Array.from({ length: 40 }, (_, index) => `${index % 4 === 0 ? 'f' : 'o'}-${randomUUID()}`);
    for (const id of ids) runFor.set(id, 5);
    await queue.addBulk(
      ids.map((id) => ({ name: 'execute', data: { executionId: id }, opts: { ...executionJobOptions(id), attempts: 1 } })),
    );
    const settled = async () => (await Promise.all(ids.map((id) => queue.getJob(id)))).every((job) => job?.finishedOn !== undefined);
    await eventually(settled, 15_000);
    expect(deliveries.size).toBe(ids.length);
    expect([...deliveries.values()].every((count) => count === 1)).toBe(true);
    for (const id of ids) {
      const job = await queue.getJob(id);
      expect(await job?.getState()).toBe(id.startsWith('f') ? 'failed' : 'completed');
      if (id.startsWith('f')) expect(job?.failedReason).toBe(`delivery of ${id} failed`);
    }
  });
});
