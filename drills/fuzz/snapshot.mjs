// What the fuzz cases must leave alone: row counts and an md5 of the ordered rows of the tables
// that hold the catalog, its history, the executions and the digital twin (prisma/schema.prisma @@map names).
import pg from 'pg';

export const TABLES = [
  'skills',
  'skill_versions',
  'lifecycle_events',
  'executions',
  'twin_branches',
  'work_products',
  'work_product_revisions',
  'work_product_constraints',
  'twin_reads',
];

export async function snapshotDatabase(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const snapshot = {};
    for (const table of TABLES) {
      const { rows } = await client.query(
        `SELECT count(*)::int AS rows, md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS md5 FROM ${table} t`,
      );
      snapshot[table] = rows[0];
    }
    return snapshot;
  } finally {
    await client.end();
  }
}

/** One line per table that differs, e.g. `executions: rows 0 → 3, md5 changed`. */
export function compareSnapshots(before, after) {
  return TABLES.filter((table) => before[table].md5 !== after[table].md5 || before[table].rows !== after[table].rows).map(
    (table) =>
      `${table}: rows ${before[table].rows} → ${after[table].rows}, md5 ${before[table].md5.slice(0, 8)} → ${after[table].md5.slice(0, 8)}`,
  );
}
