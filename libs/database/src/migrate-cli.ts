import { applyMigrations, ensureDatabase, redact } from './migrator.js';
import { migrationsDir } from './paths.js';

// `npm run db:migrate`: create the database if needed and apply pending migrations.
const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/skill_registry';
try {
  const created = await ensureDatabase(databaseUrl);
  const result = await applyMigrations(databaseUrl, migrationsDir());
  console.log(
    `${redact(databaseUrl)}: ${created ? 'database created, ' : ''}${result.applied.length} applied, ${result.alreadyApplied.length} already applied`,
  );
} catch (error) {
  console.error(`Migration failed: ${(error as Error).message}`);
  process.exit(1);
}
