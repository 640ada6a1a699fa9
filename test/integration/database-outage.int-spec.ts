import net from 'node:net';
import pg from 'pg';
import {
  PoolExhausted,
  createPgPool,
  createPrismaClient,
  isDatabaseUnavailable,
  isPoolExhausted,
  isStatementCancelled,
  retryWhileUnavailable,
} from '#database/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { freePort } from '../support/executor.js';
import { eventually } from '../support/executions.js';

/** What every process's connections do when Postgres ends them (a restart sends 57P01 to each). */
describe('database connections when Postgres goes away', () => {
  let db: TestDatabase;
  let admin: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase('outage');
    admin = new pg.Pool({ connectionString: db.url, max: 2 });
  });

  afterAll(async () => {
    await admin?.end();
    await db?.drop();
  });

  const terminateOthers = () =>
    admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);

  it('a pool whose idle connections are terminated reports it, keeps the process alive and connects again', async () => {
    const errors: Error[] = [];
    const pool = createPgPool(db.url, 2, (error) => errors.push(error));
    try {
      await pool.query('SELECT 1');
      await terminateOthers();
      await eventually(async () => errors.length > 0, 5000);
      expect(isDatabaseUnavailable(errors[0])).toBe(true);
      expect((await pool.query('SELECT 2 AS two')).rows[0].two).toBe(2);
    } finally {
      await pool.end();
    }
  });

  it('classifies a terminated query, a refused connection and an unreachable Prisma client as unavailable, a bad query as not', async () => {
    const pool = createPgPool(db.url, 2);
    const closedPort = await freePort();
    const nowhere = createPgPool(`postgresql://postgres@127.0.0.1:${closedPort}/none`, 1);
    const prisma = createPrismaClient(createPgPool(`postgresql://postgres@127.0.0.1:${closedPort}/none`, 1));
    try {
      const running = pool.query('SELECT pg_sleep(5)').catch((error: unknown) => error);
      await eventually(
        async () => (await admin.query(`SELECT 1 FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(5)'`)).rowCount === 1,
        5000,
      );
      await terminateOthers();
      const terminated = await running;
      expect(isDatabaseUnavailable(terminated)).toBe(true);
      expect(isDatabaseUnavailable(await nowhere.query('SELECT 1').catch((error: unknown) => error))).toBe(true);
      expect(isDatabaseUnavailable(await prisma.$queryRaw`SELECT 1`.catch((error: unknown) => error))).toBe(true);
      const syntax = await pool.query('SELEC 1').catch((error: unknown) => error);
      expect(syntax).toBeInstanceOf(Error);
      expect(isDatabaseUnavailable(syntax)).toBe(false);
    } finally {
      await Promise.all([pool.end(), nowhere.end(), prisma.$disconnect()]);
    }
  });

  it('retries a write through an outage and rethrows anything else at once', async () => {
    let calls = 0;
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const value = await retryWhileUnavailable(async () => {
      calls++;
      if (calls < 3) throw refused;
      return 'written';
    }, 5000);
    expect([value, calls]).toEqual(['written', 3]);
    const wrong = new Error('duplicate key');
    await expect(
      retryWhileUnavailable(async () => {
        throw wrong;
      }, 5000),
    ).rejects.toBe(wrong);
    await expect(
      retryWhileUnavailable(async () => {
        throw refused;
      }, 150),
    ).rejects.toBe(refused);
  });

  it('tells a wait on a pool whose connections are all busy (pg, and through Prisma) from a wait behind connections that cannot connect', async () => {
    const pool = createPgPool(db.url, 1);
    const prismaPool = createPgPool(db.url, 1);
    const prisma = createPrismaClient(prismaPool);
    // A server that takes connections and never answers: the pool's one client stays connecting.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const hanging = createPgPool(`postgresql://postgres@127.0.0.1:${(silent.address() as net.AddressInfo).port}/none`, 1);
    const held = await pool.connect();
    const heldByPrisma = await prismaPool.connect();
    let holding = true;
    const releaseHeld = () => {
      if (holding) for (const client of [held, heldByPrisma]) client.release();
      holding = false;
    };
    try {
      const [query, checkout, throughPrisma] = await Promise.all([
        pool.query('SELECT 1').catch((error: unknown) => error),
        pool.connect().catch((error: unknown) => error),
        prisma.$queryRaw`SELECT 1`.catch((error: unknown) => error),
      ]);
      for (const refused of [query, checkout]) {
        expect(refused).toBeInstanceOf(PoolExhausted);
        expect(refused).toMatchObject({ code: 'POOL_EXHAUSTED', poolSize: 1, waitedMs: 1500 });
        expect(isDatabaseUnavailable(refused)).toBe(true);
        expect(isPoolExhausted(refused)).toBe(true);
      }
      expect(isPoolExhausted(throughPrisma)).toBe(true);
      expect(isDatabaseUnavailable(throughPrisma)).toBe(true);
      expect([pool.exhaustedWaits, prismaPool.exhaustedWaits, pool.connectedCount]).toEqual([2, 1, 1]);

      // The first request's client never connects; the second waits behind it in the queue, and is told the same
      // thing by pg-pool, but no connection of the pool was ever busy: the database is unreachable, not saturated.
      const [connecting, queued] = await Promise.all([
        hanging.query('SELECT 1').catch((error: unknown) => error),
        hanging.query('SELECT 1').catch((error: unknown) => error),
      ]);
      for (const unreachable of [connecting, queued]) {
        expect(isDatabaseUnavailable(unreachable)).toBe(true);
        expect(isPoolExhausted(unreachable)).toBe(false);
      }
      expect((queued as Error).message).toBe('timeout exceeded when trying to connect');
      expect(hanging.exhaustedWaits).toBe(0);

      // Released, the connections serve again.
      releaseHeld();
      expect((await pool.query('SELECT 2 AS two')).rows[0].two).toBe(2);
      expect(await prisma.$queryRaw`SELECT 3 AS three`).toEqual([{ three: 3 }]);
    } finally {
      releaseHeld();
      await Promise.all([pool.end(), prisma.$disconnect(), hanging.end().catch(() => undefined)]);
      silent.close();
    }
  }, 20_000);

  it('bounds a statement by the pool statement timeout (a 503 case, the connection free again), through pg and Prisma; none by default', async () => {
    const bounded = createPgPool(db.url, 1, () => undefined, 300);
    const prisma = createPrismaClient(createPgPool(db.url, 1, () => undefined, 300));
    const unbounded = createPgPool(db.url, 1);
    try {
      const started = performance.now();
      const cancelled = await bounded.query('SELECT pg_sleep(3)').catch((error: unknown) => error);
      expect(performance.now() - started).toBeLessThan(2000);
      expect(cancelled).toMatchObject({ code: '57014' });
      expect([isStatementCancelled(cancelled), isDatabaseUnavailable(cancelled), isPoolExhausted(cancelled)]).toEqual([true, true, false]);
      const throughPrisma = await prisma.$queryRaw`SELECT pg_sleep(3)`.catch((error: unknown) => error);
      expect([isStatementCancelled(throughPrisma), isDatabaseUnavailable(throughPrisma)]).toEqual([true, true]);
      // The one connection serves the next statement; a statement within the bound runs as ever.
      expect((await bounded.query('SELECT pg_sleep(0.1), 2 AS two')).rows[0].two).toBe(2);
      expect(await prisma.$queryRaw`SELECT 3 AS three`).toEqual([{ three: 3 }]);
      expect((await unbounded.query('SHOW statement_timeout')).rows[0].statement_timeout).toBe('0');
      expect((await bounded.query('SHOW statement_timeout')).rows[0].statement_timeout).toBe('300ms');
      expect(isStatementCancelled(await unbounded.query('SELEC 1').catch((error: unknown) => error))).toBe(false);
    } finally {
      await Promise.all([bounded.end(), prisma.$disconnect(), unbounded.end()]);
    }
  }, 20_000);
});
