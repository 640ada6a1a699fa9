import type pg from 'pg';
import { TwinFailure } from './twin-failure.js';
import type { LineageStep } from './twin-rules.js';
import { toRevision } from './twin-rows.js';
import type { RevisionView, TwinWriter } from './twin-views.js';

/** The statements TwinStore's writes share: visibility on a lineage, the branch quota, revision numbering, transactions. */

/** The visible-revision join: a revision counts on a branch when it is in the lineage and within its cutoff. */
export const VISIBLE = `JOIN unnest($2::text[], $3::timestamptz[]) AS l(branch, cutoff)
  ON r.branch = l.branch AND (l.cutoff IS NULL OR r.created_at <= l.cutoff)`;

/** The latest revision of a work product visible on a lineage (archival markers included). */
export async function visibleRevision(client: pg.PoolClient, id: string, lineage: LineageStep[]): Promise<RevisionView | null> {
  const result = await client.query(
    `SELECT r.* FROM work_product_revisions r ${VISIBLE} WHERE r.work_product_id = $1 ORDER BY r.revision DESC LIMIT 1`,
    [id, ...lineageParams(lineage)],
  );
  return result.rows[0] ? toRevision(result.rows[0]) : null;
}

/** Counts `size` bytes against the branch's quota (this also serialises writes to one branch). */
export async function chargeBranch(client: pg.PoolClient, branch: string, size: number, maxBranchBytes: number): Promise<void> {
  const result = await client.query(
    `UPDATE twin_branches SET bytes_written = bytes_written + $2 WHERE name = $1 AND bytes_written + $2 <= $3 RETURNING bytes_written`,
    [branch, size, maxBranchBytes],
  );
  if (result.rowCount === 0) {
    throw new TwinFailure('TOO_LARGE', `Branch '${branch}' would hold more than ${maxBranchBytes} bytes (TWIN_MAX_BRANCH_BYTES)`, {
      limit: 'TWIN_MAX_BRANCH_BYTES',
      branch,
      max_bytes: maxBranchBytes,
    });
  }
}

/** Appends the next revision of a work product (numbered under its row lock, timed after it). */
export async function insertRevision(
  client: pg.PoolClient,
  id: string,
  branch: string,
  writer: TwinWriter,
  content: { archived: boolean; sha256: string | null; mediaType: string | null; size: number; metadata: Record<string, unknown> },
): Promise<RevisionView> {
  const counter = await client.query(`UPDATE work_products SET last_revision = last_revision + 1 WHERE id = $1 RETURNING last_revision`, [
    id,
  ]);
  const result = await client.query(
    `INSERT INTO work_product_revisions (work_product_id, revision, branch, archived, sha256, media_type, size, metadata, created_by, execution_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, clock_timestamp()) RETURNING *`,
    [
      id,
      counter.rows[0].last_revision,
      branch,
      content.archived,
      content.sha256,
      content.mediaType,
      content.size,
      JSON.stringify(content.metadata),
      writer.identity,
      writer.executionId ?? null,
    ],
  );
  return toRevision(result.rows[0]);
}

/** Runs `work` in one transaction on a client of the pool. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export function lineageParams(lineage: LineageStep[]): [string[], (Date | null)[]] {
  return [lineage.map((step) => step.branch), lineage.map((step) => step.cutoff)];
}

export function sameContent(revision: RevisionView, sha256: string, mediaType: string, metadata: Record<string, unknown>): boolean {
  return (
    revision.contentHash === `sha256:${sha256}` &&
    revision.mediaType === mediaType &&
    canonicalJson(revision.metadata) === canonicalJson(metadata)
  );
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.keys(inner as object)
            .sort()
            .map((key) => [key, (inner as Record<string, unknown>)[key]]),
        )
      : inner,
  );
}
