// Drill: the multi-node shape on this machine, every part a real process on loopback. A Redis Cluster
// (3 masters + 3 replicas, private ports), PgBouncer in transaction mode in front of a private database
// on the machine's Postgres, HAProxy with deploy/haproxy.cfg, 2 registries, 3 executors and the tool
// adapters. Catalog changes are measured across the replicas; then load over REST, gRPC and MCP for
// --load-seconds while it kills a registry (kill -9, started again), kills an executor, fails a Redis
// master over (CLUSTER FAILOVER on its replica, then kill -9 of the old master) and restarts PgBouncer.
// Everything it starts is torn down whatever happens; the machine's Redis (6379) is never touched.
//
//   npm run drill:scale [-- --load-seconds 120 --rate 12 --executors 3]
import { runDrill } from '../support/harness.mjs';
import { ensureScalePrograms } from './programs.mjs';
import { ADAPTERS, runScaleDrill } from './drill.mjs';

const args = {
  'load-seconds': { type: 'string', default: '120' },
  rate: { type: 'string', default: '12' },
  'handler-ms': { type: 'string', default: '300' },
  executors: { type: 'string', default: '3' },
  'mcp-clients': { type: 'string', default: '2' },
  'settle-seconds': { type: 'string', default: '120' },
  faults: { type: 'string', default: 'registry,executor,redis,pgbouncer' },
};

runDrill(
  'scale',
  async (ctx) => {
    ensureScalePrograms();
    await runScaleDrill(ctx, {
      loadSeconds: Number(ctx.values['load-seconds']),
      rate: Number(ctx.values.rate),
      handlerMs: Number(ctx.values['handler-ms']),
      executors: Number(ctx.values.executors),
      mcpClients: Number(ctx.values['mcp-clients']),
      settleSeconds: Number(ctx.values['settle-seconds']),
      faults: ctx.values.faults.split(',').filter(Boolean),
      adapters: ADAPTERS,
    });
  },
  { args, timeoutMs: (v) => (Number(v['load-seconds']) + Number(v['settle-seconds']) + 300) * 1000 },
);
