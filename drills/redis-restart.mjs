// Drill: stop a private redis-server for a few seconds under load (first SIGTERM, then SIGKILL,
// alternating) while the built registry and executor use it, and start it again (no persistence:
// queued jobs vanish and the executor's reconciler must find them). Expected: no process exits,
// every error answer a quick 503 problem, every accepted execution SUCCEEDED with its handler run once.
//
//   node drills/redis-restart.mjs [--restarts 2] [--down-seconds 3] [--rate 10] [--handler-ms 750] [--gap-seconds 5] [--settle-seconds 120]
//
// The shared Redis on 6379 is never touched; Postgres is the shared one with a database of the drill's own.
import { runDrill, sleep } from './support/harness.mjs';
import { runOutageDrill } from './support/outage.mjs';
import { sharedDatabase, startPrivateRedis } from './support/services.mjs';

const args = {
  restarts: { type: 'string', default: '2' },
  'down-seconds': { type: 'string', default: '3' },
  rate: { type: 'string', default: '10' },
  'handler-ms': { type: 'string', default: '750' },
  'gap-seconds': { type: 'string', default: '5' },
  'settle-seconds': { type: 'string', default: '120' },
};

runDrill(
  'redis-restart',
  async (ctx) => {
    const redis = await startPrivateRedis();
    ctx.defer(() => redis.destroy());
    ctx.log(`private Redis on port ${redis.port}`);
    const db = sharedDatabase();
    ctx.defer(() => db.drop());
    await runOutageDrill(ctx, {
      env: { DATABASE_URL: db.url, REDIS_URL: redis.url, QUEUE_PREFIX: `drill-redis-${process.pid}` },
      restarts: Number(ctx.values.restarts),
      rate: Number(ctx.values.rate),
      handlerMs: Number(ctx.values['handler-ms']),
      gapMs: Number(ctx.values['gap-seconds']) * 1000,
      settleMs: Number(ctx.values['settle-seconds']) * 1000,
      codes: ['QUEUE_UNAVAILABLE'],
      expectNotReady: false,
      async disrupt(i) {
        const signal = i % 2 === 0 ? 'SIGTERM' : 'SIGKILL';
        const from = Date.now();
        await redis.stop(signal);
        await sleep(Number(ctx.values['down-seconds']) * 1000);
        await redis.start();
        return { from, to: Date.now(), label: `stop ${i + 1} (${signal}, ${ctx.values['down-seconds']} s)` };
      },
    });
  },
  {
    args,
    timeoutMs: (v) =>
      (Number(v.restarts) * (Number(v['gap-seconds']) + Number(v['down-seconds']) + 30) + Number(v['settle-seconds']) + 240) * 1000,
  },
);
