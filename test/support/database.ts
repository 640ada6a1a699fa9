import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { applyMigrations, migrationsDir } from '#database/index.js';

/** Server the tests use; the same Postgres the app uses on this machine. */
export const TEST_SERVER_URL = process.env.TEST_DATABASE_SERVER_URL ?? 'postgresql://postgres@127.0.0.1:5432';
/** The migrated template of this test run (one per run, so parallel runs do not collide). */
function templateDatabase(): string {
  const name = process.env.SKILL_REGISTRY_TEST_TEMPLATE;
  if (!name) throw new Error('SKILL_REGISTRY_TEST_TEMPLATE is not set: run the tests through jest (test/support/global-setup.ts)');
  return name;
}

function urlFor(database: string): string {
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: urlFor('postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Jest global setup: a freshly migrated template database that every test file clones. */
export async function prepareTemplateDatabase(): Promise<string> {
  const template = `skill_registry_test_template_t${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
  await withAdmin(async (client) => {
    // Leftovers of runs killed before their teardown: only those over an hour old, so a run going on
    // in parallel (names carry their creation time) keeps its databases.
    const stale = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'skill_registry_test_%'`);
    const cutoff = Math.floor(Date.now() / 1000) - 3600;
    for (const row of stale.rows) {
      const created = Number(/_t(\d{10})_/.exec(row.datname)?.[1] ?? Number.NaN);
      if (Number.isNaN(created) || created > cutoff) continue;
      await client.query(`DROP DATABASE IF EXISTS ${row.datname} WITH (FORCE)`).catch(() => undefined);
    }
    await client.query(`CREATE DATABASE ${template}`);
  });
  await applyMigrations(urlFor(template), migrationsDir());
  return template;
}

export async function dropTemplateDatabase(template: string): Promise<void> {
  await withAdmin(async (client) => void (await client.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`)));
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A database of this test file's own, cloned from the migrated template. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `skill_registry_test_${label
    .replace(/[^a-z0-9]/gi, '_')
    .toLowerCase()
    .slice(0, 16)}_t${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
  await withAdmin(async (client) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${name} TEMPLATE ${templateDatabase()}`);
        return;
      } catch (error) {
        // 55006: the template is being copied by another test file right now.
        if ((error as { code?: string }).code !== '55006' || attempt > 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
      }
    }
  });
  return {
    name,
    url: urlFor(name),
    // A pool's end() resolves once it has asked its clients to close, not when they have: a forced drop
    // right after it kills them mid-close, and their 'error' events land in whatever test runs next.
    // So the drop waits (briefly) for the database's sessions to be gone before it forces anything.
    drop: () =>
      withAdmin(async (client) => {
        for (let attempt = 0; attempt < 20; attempt++) {
          const { rows } = await client.query(`SELECT count(*)::int AS sessions FROM pg_stat_activity WHERE datname = $1`, [name]);
          if (rows[0].sessions === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}

/** A plain pg client on `url`, for assertions on stored rows. */
export async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}
