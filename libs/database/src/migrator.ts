import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';

/**
 * Applies the SQL migrations of prisma/migrations without Prisma's downloadable schema engine.
 * Bookkeeping is Prisma's own `_prisma_migrations` table (same columns, sha256 checksums, same
 * advisory lock key), so `prisma migrate status/deploy` agree with it wherever Prisma's CLI works.
 */

// The advisory lock key Prisma Migrate takes; sharing it serialises us with Prisma's CLI too.
const PRISMA_MIGRATE_LOCK_KEY = 72707369;

interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationResult {
  applied: string[];
  alreadyApplied: string[];
}

class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationError';
  }
}

async function readMigrations(migrationsDir: string): Promise<MigrationFile[]> {
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const migrations: MigrationFile[] = [];
  for (const name of names) {
    const sql = await readFile(path.join(migrationsDir, name, 'migration.sql'), 'utf8');
    migrations.push({ name, sql, checksum: createHash('sha256').update(sql).digest('hex') });
  }
  return migrations;
}

/** Creates the database named in `databaseUrl` when it does not exist; safe when several processes race. */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const target = new URL(databaseUrl);
  const databaseName = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!databaseName) throw new MigrationError(`DATABASE_URL names no database: ${redact(databaseUrl)}`);
  const maintenance = new URL(databaseUrl);
  maintenance.pathname = '/postgres';
  const client = new pg.Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [databaseName]);
    if (found.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdentifier(databaseName)}`);
      return true;
    } catch (error) {
      // 42P04 duplicate_database, 23505 unique_violation: another process created it first.
      const code = (error as { code?: string }).code;
      if (code === '42P04' || code === '23505') return false;
      throw error;
    }
  } finally {
    await client.end();
  }
}

const CREATE_BOOKKEEPING_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/** Applies every pending migration, each in its own transaction, under Prisma's advisory lock. */
export async function applyMigrations(databaseUrl: string, migrationsDir: string): Promise<MigrationResult> {
  const migrations = await readMigrations(migrationsDir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATE_LOCK_KEY]);
    try {
      await client.query(CREATE_BOOKKEEPING_TABLE);
      const applied = await appliedMigrations(client);
      const result: MigrationResult = { applied: [], alreadyApplied: [] };
      for (const migration of migrations) {
        const row = applied.get(migration.name);
        if (row && row.finished_at && !row.rolled_back_at) {
          if (row.checksum !== migration.checksum) {
            throw new MigrationError(
              `Migration ${migration.name} was changed after it was applied (checksum differs); add a new migration instead`,
            );
          }
          result.alreadyApplied.push(migration.name);
          continue;
        }
        if (row && !row.finished_at && !row.rolled_back_at) {
          throw new MigrationError(
            `Migration ${migration.name} failed earlier and is marked unfinished in _prisma_migrations; resolve it before starting`,
          );
        }
        await applyOne(client, migration);
        result.applied.push(migration.name);
      }
      return result;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATE_LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
}

/** Names of migrations on disk missing from `appliedNames` (empty = the database is up to date). */
export async function unappliedMigrations(appliedNames: Iterable<string>, migrationsDir: string): Promise<string[]> {
  const applied = new Set(appliedNames);
  return (await migrationNames(migrationsDir)).filter((name) => !applied.has(name));
}

const namesByDir = new Map<string, Promise<string[]>>();

/**
 * The migrations shipped in `migrationsDir`, in order: the directory names, read once per process (they
 * are part of the deployed code). Readiness probes ask this on every call; reading and hashing every
 * migration file each time made a probe wait on a busy file system (a 2 s readiness timeout under load).
 */
export function migrationNames(migrationsDir: string): Promise<string[]> {
  let names = namesByDir.get(migrationsDir);
  if (!names) {
    names = readdir(migrationsDir, { withFileTypes: true }).then((entries) =>
      entries
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort(),
    );
    // A failed read is not remembered: the next probe tries again.
    names.catch(() => namesByDir.delete(migrationsDir));
    namesByDir.set(migrationsDir, names);
  }
  return names;
}

async function appliedMigrations(client: pg.ClientBase | pg.Pool): Promise<Map<string, AppliedRow>> {
  const rows = await client.query<AppliedRow>(
    `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at`,
  );
  const byName = new Map<string, AppliedRow>();
  for (const row of rows.rows) {
    const previous = byName.get(row.migration_name);
    // A rolled-back attempt followed by a good one: the good one counts.
    if (!previous || previous.rolled_back_at || !previous.finished_at) byName.set(row.migration_name, row);
  }
  return byName;
}

async function applyOne(client: pg.Client, migration: MigrationFile): Promise<void> {
  const id = randomUUID();
  await client.query('BEGIN');
  try {
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)`,
      [id, migration.checksum, migration.name],
    );
    await client.query(migration.sql);
    await client.query(`UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`, [id]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw new MigrationError(`Migration ${migration.name} failed: ${(error as Error).message}`);
  }
}

function quoteIdentifier(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}

/** The URL with its password hidden, for messages. */
export function redact(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '<unparseable url>';
  }
}
