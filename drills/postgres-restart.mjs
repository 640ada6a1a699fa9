// Drill: restart a private Postgres cluster under load (pg_ctl restart -m fast, the last one
// -m immediate) while the built registry and executor use it. Expected: no process exits, every
// error answer a quick 503 problem, /readyz not ready during the outage and ready after, /healthz
// always 200, and every accepted execution SUCCEEDED with its handler run once.
//
//   node drills/postgres-restart.mjs [--restarts 2] [--rate 10] [--handler-ms 750] [--gap-seconds 5] [--settle-seconds 120] [--down-seconds 0]
//
// The shared Postgres on 5432 is never touched; Redis is the shared one under a unique key prefix.
import { runDrill } from './support/harness.mjs';
import { runOutageDrill } from './support/outage.mjs';
import { SHARED_REDIS_URL, sharedQueuePrefix, startPrivatePostgres } from './support/services.mjs';

const args = {
  restarts: { type: 'string', default: '2' },
  rate: { type: 'string', default: '10' },
  'handler-ms': { type: 'string', default: '750' },
  'gap-seconds': { type: 'string', default: '5' },
  'settle-seconds': { type: 'string', default: '120' },
  // 0: `pg_ctl restart` (down well under a second); N: stop, stay down N seconds, start (an outage like a host reboot).
  'down-seconds': { type: 'string', default: '0' },
};

runDrill(
  'postgres-restart',
  async (ctx) => {
    const restarts = Number(ctx.values.restarts);
    const cluster = await startPrivatePostgres();
    ctx.defer(() => cluster.destroy());
    ctx.log(`private Postgres on port ${cluster.port} (${cluster.dataDir})`);
    const queue = sharedQueuePrefix('pg');
    ctx.defer(() => queue.cleanup());
    await runOutageDrill(ctx, {
      env: { DATABASE_URL: cluster.url('skill_registry'), REDIS_URL: SHARED_REDIS_URL, QUEUE_PREFIX: queue.prefix },
      restarts,
      rate: Number(ctx.values.rate),
      handlerMs: Number(ctx.values['handler-ms']),
      gapMs: Number(ctx.values['gap-seconds']) * 1000,
      settleMs: Number(ctx.values['settle-seconds']) * 1000,
      codes: ['DATABASE_UNAVAILABLE', 'QUEUE_UNAVAILABLE'],
      expectNotReady: true,
      async disrupt(i) {
        // Two or more restarts: the last one is a crash-like immediate shutdown (recovery on start).
        const mode = restarts > 1 && i === restarts - 1 ? 'immediate' : 'fast';
        const from = Date.now();
        const downMs = Number(ctx.values['down-seconds']) * 1000;
        if (downMs > 0) {
          await cluster.stop(mode);
          await new Promise((resolve) => setTimeout(resolve, downMs));
          await cluster.start();
        } else await cluster.restart(mode);
        return { from, to: Date.now(), label: `restart ${i + 1} (-m ${mode}${downMs > 0 ? `, down ${downMs / 1000} s` : ''})` };
      },
    });
  },
  {
    args,
    timeoutMs: (v) =>
      (Number(v.restarts) * (Number(v['gap-seconds']) + Number(v['down-seconds']) + 60) + Number(v['settle-seconds']) + 240) * 1000,
  },
);
