import { collectingContext, ensureScalePrograms, runScaleDrill, type ScaleDrillContext } from '../../drills/scale/index.mjs';

/**
 * Smoke version of drills/scale (npm run drill:scale): the same topology, smaller and shorter. A Redis
 * Cluster (3 masters + 3 replicas on private ports), PgBouncer in front of a private database, HAProxy
 * with deploy/haproxy.cfg, 2 built registries and 2 executors; 30 s of REST, gRPC and MCP load through
 * HAProxy while a registry holding an MCP session is killed (kill -9) and started again and a Redis
 * master fails over. Catalog changes must reach the other replica within 5 s here (the full drill
 * holds them to 1 s; this suite runs on a loaded machine).
 */
describe('drill smoke: two registries, executors, a Redis Cluster, PgBouncer and HAProxy under faults', () => {
  let context: ScaleDrillContext;

  beforeAll(() => ensureScalePrograms());

  afterAll(async () => {
    await context?.cleanup({ keepLogs: context.checks.some((check) => !check.ok) });
  });

  it('loses no accepted execution, runs none twice, answers every error as a proper unavailability, and ends with one catalog', async () => {
    context = await collectingContext();
    await runScaleDrill(context, {
      loadSeconds: 30,
      rate: 6,
      handlerMs: 200,
      executors: 2,
      mcpClients: 1,
      settleSeconds: 60,
      faults: ['registry', 'redis'],
      adapters: [],
      visibilityBoundMs: 5000,
    });
    const failed = context.checks.filter((check) => !check.ok);
    expect(failed).toEqual([]);
    expect(context.checks.map((check) => check.label)).toEqual(
      expect.arrayContaining([
        '0 accepted executions lost',
        '0 non-idempotent handlers run twice',
        '0 stuck after the load',
        'catalog identical on both replicas',
        'MCP session clients re-initialized after their replica died and carried on',
      ]),
    );
    expect(context.figures.accepted).toBeGreaterThan(20);
  }, 170_000);
});
