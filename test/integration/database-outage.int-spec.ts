import pg from 'pg';
import { createPgPool, createPrismaClient, isDatabaseUnavailable, retryWhileUnavailable } from '#database/index.js';
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
});
