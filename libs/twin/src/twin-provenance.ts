import type pg from 'pg';
import { TwinFailure } from './twin-failure.js';
import { checkWorkProductId } from './twin-rules.js';
import { toConstraintsRead, toRevision } from './twin-rows.js';
import type { ConstraintsRead, ContentRead, ExecutionTwinAccess, ProvenanceView } from './twin-views.js';

/** The provenance of the twin: which executions read which revisions, and who wrote each. */
export class TwinProvenance {
  constructor(private readonly pool: pg.Pool) {}

  /** Records that an execution read a revision (idempotent). */
  async recordRead(executionId: string, workProductId: string, revision: number): Promise<void> {
    await this.pool.query(`INSERT INTO twin_reads (execution_id, work_product_id, revision) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [
      executionId,
      workProductId,
      revision,
    ]);
  }

  /** Who wrote a revision (with what that execution read) and which executions read it. */
  async provenance(id: unknown, revision: number): Promise<ProvenanceView> {
    const checkedId = checkWorkProductId(id);
    const found = await this.pool.query(`SELECT * FROM work_product_revisions WHERE work_product_id = $1 AND revision = $2`, [
      checkedId,
      revision,
    ]);
    if (!found.rows[0]) {
      throw new TwinFailure('REVISION_NOT_FOUND', `Work product ${checkedId} has no revision ${revision}`, {
        work_product_id: checkedId,
        revision,
      });
    }
    const written = toRevision(found.rows[0]);
    const [reads, writer] = await Promise.all([
      this.pool.query(
        `SELECT execution_id, at FROM twin_reads WHERE work_product_id = $1 AND revision = $2 ORDER BY at, execution_id LIMIT 1000`,
        [checkedId, revision],
      ),
      written.executionId ? this.readsOf(written.executionId) : { read: [], constraintsRead: [] },
    ]);
    return {
      revision: written,
      readBy: reads.rows.map((row) => ({ executionId: row.execution_id as string, at: row.at as Date })),
      writerRead: writer.read,
      writerConstraintsRead: writer.constraintsRead,
    };
  }

  /** The revisions one execution read (content and constraints) and wrote. */
  async accessOf(executionId: string): Promise<ExecutionTwinAccess> {
    const [reads, writes] = await Promise.all([
      this.readsOf(executionId),
      this.pool.query(
        `SELECT work_product_id, revision, branch, created_at FROM work_product_revisions WHERE execution_id = $1 ORDER BY created_at LIMIT 1000`,
        [executionId],
      ),
    ]);
    return {
      ...reads,
      wrote: writes.rows.map((row) => ({
        workProductId: row.work_product_id,
        revision: row.revision,
        branch: row.branch,
        at: row.created_at,
      })),
    };
  }

  private async readsOf(executionId: string): Promise<{ read: ContentRead[]; constraintsRead: ConstraintsRead[] }> {
    const [content, constraints] = await Promise.all([
      this.pool.query(
        `SELECT work_product_id, revision, at FROM twin_reads WHERE execution_id = $1 ORDER BY at, work_product_id LIMIT 1000`,
        [executionId],
      ),
      this.pool.query(
        `SELECT c.work_product_id, c.revision, w.branch, w.constraints, c.at
         FROM twin_constraint_reads c JOIN work_product_constraints w ON w.work_product_id = c.work_product_id AND w.revision = c.revision
         WHERE c.execution_id = $1 ORDER BY c.at, c.work_product_id, c.revision LIMIT 1000`,
        [executionId],
      ),
    ]);
    return {
      read: content.rows.map((row) => ({ workProductId: row.work_product_id, revision: row.revision, at: row.at })),
      constraintsRead: constraints.rows.map(toConstraintsRead),
    };
  }
}
