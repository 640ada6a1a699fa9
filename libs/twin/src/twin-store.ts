import { createHash, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { type BlobStore, PostgresBlobStore } from '#package-store/index.js';
import { checkConstraints } from './constraint-kinds.js';
import { TwinBranches } from './twin-branches.js';
import { TwinProvenance } from './twin-provenance.js';
import { VISIBLE, chargeBranch, inTransaction, insertRevision, lineageParams, sameContent, visibleRevision } from './twin-revision-sql.js';
import { invalid } from './twin-failure.js';
import {
  DEFAULT_TWIN_LIMITS,
  type LineageStep,
  type TwinLimits,
  checkBranchName,
  checkContentSize,
  checkKind,
  checkMediaType,
  checkMetadata,
  checkName,
  checkWorkProductId,
} from './twin-rules.js';
import {
  type Row,
  kindMismatch,
  revisionNotFound,
  toConstraints,
  toJoinedWorkProduct,
  toRevision,
  toWorkProduct,
  workProductArchived,
  workProductNotFound,
} from './twin-rows.js';
import type {
  BranchView,
  ConstraintsView,
  ExecutionTwinAccess,
  ProvenanceView,
  RevisionView,
  TwinWriter,
  WorkProductView,
} from './twin-views.js';

export interface PutRequest {
  branch: string;
  /** An existing work product to add a revision to (archived on the branch or not); omitted: a new work product. */
  id?: string;
  /** Required for a new work product; for a revision, it must match when given. */
  kind?: string;
  /** Required for a new work product; for a revision, it must match when given. */
  name?: string;
  bytes: Buffer;
  mediaType: string;
  metadata?: unknown;
}

export interface ListQuery {
  kind?: string;
  name?: string;
  /** The last id of the previous page. */
  after?: string;
  limit: number;
  /** true: only the work products archived on the branch (current there: their archival marker); default: only those not archived. */
  archived?: boolean;
}

/** A put's work product as current after it, and whether a revision was written. */
export interface PutResult extends WorkProductView {
  /** false when the current revision already held these bytes, media type and metadata: nothing was written. */
  written: boolean;
}

/** An execution a read is recorded for (provenance). */
export interface TwinReader {
  executionId: string;
}

/**
 * The digital twin's store: branches, work products with immutable revisions (content in the
 * package store's blobs, by sha256), constraints, and the provenance of executions' reads and
 * writes. Nothing is deleted; archiving hides a work product on one branch, where its revisions stay
 * readable by number and a new revision restores it.
 *
 * Revision numbers are per work product across branches, assigned under the work product's row
 * lock, so concurrent writes never lose a revision; the time of a revision is taken after that lock,
 * so later numbers never carry earlier times and "the latest visible revision" is the highest number.
 */
export class TwinStore {
  private readonly branches: TwinBranches;
  private readonly reads: TwinProvenance;

  constructor(
    private readonly pool: pg.Pool,
    private readonly limits: TwinLimits = DEFAULT_TWIN_LIMITS,
    private readonly blobs: BlobStore = new PostgresBlobStore(pool),
  ) {
    this.branches = new TwinBranches(pool);
    this.reads = new TwinProvenance(pool);
  }

  // ── branches (TwinBranches) ───────────────────────────────────────────────────────────────────

  /**
   * Makes branch `name` from `from` as it was at `at` (default now). `from: null` makes an empty root
   * branch, for promotions only.
   */
  createBranch(
    request: { name: unknown; from?: unknown; at?: Date; purpose?: 'work' | 'promotion' },
    writer: TwinWriter,
  ): Promise<BranchView> {
    return this.branches.createBranch(request, writer);
  }

  branch(name: unknown): Promise<BranchView> {
    return this.branches.branch(name);
  }

  /** Branches by name; promotion branches only when asked for. */
  listBranches(options: { includePromotion?: boolean; after?: string; limit: number }): Promise<BranchView[]> {
    return this.branches.listBranches(options);
  }

  /** The lineage of a branch; BRANCH_NOT_FOUND when there is no such branch. */
  lineage(name: unknown): Promise<LineageStep[]> {
    return this.branches.lineage(name);
  }

  // ── work products ─────────────────────────────────────────────────────────────────────────────

  /**
   * Writes a revision. With `id`, the work product must be visible on the branch (archived there or
   * not: a new revision restores an archived one) and of the same kind; when its current revision
   * there already has these bytes, media type and metadata, that revision is returned and nothing is
   * written (so a retried skill does not pile up copies).
   */
  async put(request: PutRequest, writer: TwinWriter, options: { createWithId?: boolean } = {}): Promise<PutResult> {
    const branch = checkBranchName(request.branch);
    const id = request.id === undefined ? undefined : checkWorkProductId(request.id);
    // A revision may leave the kind to the work product's own.
    const kind = request.kind === undefined && id !== undefined ? undefined : checkKind(request.kind);
    const name = request.name === undefined ? undefined : checkName(request.name);
    if (id === undefined && name === undefined) throw invalid('name', 'is required for a new work product');
    const mediaType = checkMediaType(request.mediaType);
    const metadata = checkMetadata(request.metadata);
    checkContentSize(request.bytes.length, this.limits);
    const lineage = await this.lineage(branch);
    // Checked again under the row lock below; here so that a revision of nothing stores no blob either.
    if (id !== undefined && !options.createWithId && !(await this.latest(id, branch))) throw workProductNotFound(id, branch);
    const sha256 = createHash('sha256').update(request.bytes).digest('hex');
    // Blobs first: a revision never names a blob that is not there. An unused blob costs only space.
    await this.blobs.put([{ sha256, bytes: request.bytes }]);

    return inTransaction(this.pool, async (client) => {
      const lock = (workProductId: string) => client.query(`SELECT * FROM work_products WHERE id = $1 FOR UPDATE`, [workProductId]);
      let workProduct: Row | undefined = id === undefined ? undefined : (await lock(id)).rows[0];
      if (id !== undefined && !workProduct) {
        // Only fixtures (a promotion's example) name the id of a work product that does not exist yet.
        if (!options.createWithId) throw workProductNotFound(id, branch);
        if (name === undefined) throw invalid('name', 'is required for a new work product');
        if (kind === undefined) throw invalid('kind', 'is required for a new work product');
        await client.query(`INSERT INTO work_products (id, kind, name, created_by) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`, [
          id,
          kind,
          name,
          writer.identity,
        ]);
        workProduct = (await lock(id)).rows[0] as Row;
      }
      if (workProduct && id !== undefined) {
        if (kind !== undefined && workProduct.kind !== kind) throw kindMismatch(id, workProduct.kind as string, kind);
        if (name !== undefined && name !== workProduct.name) {
          throw invalid('name', `is '${workProduct.name as string}' for work product ${id}; names do not change`);
        }
        const current = await visibleRevision(client, id, lineage);
        if (!current && !options.createWithId) throw workProductNotFound(id, branch);
        if (current && !current.archived && sameContent(current, sha256, mediaType, metadata))
          return { ...toWorkProduct(workProduct, branch, current), written: false };
      }
      if (!workProduct) {
        workProduct = (
          await client.query(`INSERT INTO work_products (id, kind, name, created_by) VALUES ($1, $2, $3, $4) RETURNING *`, [
            randomUUID(),
            kind,
            name,
            writer.identity,
          ])
        ).rows[0] as Row;
      }
      const workProductId = workProduct.id as string;
      await chargeBranch(client, branch, request.bytes.length, this.limits.maxBranchBytes);
      const revision = await insertRevision(client, workProductId, branch, writer, {
        archived: false,
        sha256,
        mediaType,
        size: request.bytes.length,
        metadata,
      });
      return { ...toWorkProduct(workProduct, branch, revision), written: true };
    });
  }

  /** The work product as current on the branch; null when it is not there or archived there. */
  async get(id: unknown, branch: unknown): Promise<WorkProductView | null> {
    const found = await this.latest(id, branch);
    return found && !found.current.archived ? found : null;
  }

  /** As `get`, but WORK_PRODUCT_NOT_FOUND naming the id and the branch (and saying so when it is archived there). */
  async require(id: unknown, branch: unknown): Promise<WorkProductView> {
    const found = await this.latest(id, branch);
    if (!found) throw workProductNotFound(checkWorkProductId(id), checkBranchName(branch));
    if (found.current.archived) throw workProductArchived(found);
    return found;
  }

  /** Work products current on the branch (or, with `archived`, those archived there), by id. */
  async list(branch: unknown, query: ListQuery): Promise<WorkProductView[]> {
    const lineage = await this.lineage(branch);
    const kind = query.kind === undefined ? null : checkKind(query.kind);
    const after = query.after === undefined ? null : checkWorkProductId(query.after, 'cursor');
    const result = await this.pool.query(
      `SELECT * FROM (
         SELECT DISTINCT ON (r.work_product_id) r.*, w.kind, w.name, w.created_by AS wp_created_by, w.created_at AS wp_created_at
         FROM work_product_revisions r ${VISIBLE} JOIN work_products w ON w.id = r.work_product_id
         WHERE ($1::text IS NULL OR w.kind = $1) AND ($4::uuid IS NULL OR r.work_product_id > $4) AND ($5::text IS NULL OR w.name = $5)
         ORDER BY r.work_product_id, r.revision DESC
       ) current WHERE current.archived = $7 ORDER BY current.work_product_id LIMIT $6`,
      [kind, ...lineageParams(lineage), after, query.name ?? null, query.limit, query.archived === true],
    );
    return result.rows.map((row) => toJoinedWorkProduct(row, lineage[0]!.branch));
  }

  /** Every revision of the work product visible on the branch, newest first; an archived one's too (its archival marker first). */
  async revisions(id: unknown, branch: unknown): Promise<RevisionView[]> {
    const found = await this.latestOrThrow(id, branch);
    const lineage = await this.lineage(branch);
    const result = await this.pool.query(
      `SELECT r.* FROM work_product_revisions r ${VISIBLE} WHERE r.work_product_id = $1 ORDER BY r.revision DESC LIMIT 1000`,
      [found.id, ...lineageParams(lineage)],
    );
    return result.rows.map(toRevision);
  }

  /**
   * The content of the current revision on the branch, or of `revision` when it is visible there:
   * numbered revisions stay readable when the work product is archived there, "the current one" does
   * not (it is hidden). `reader` records the read as the execution's provenance.
   */
  async readContent(
    id: unknown,
    branch: unknown,
    revision?: number,
    reader?: TwinReader,
  ): Promise<{ workProduct: WorkProductView; revision: RevisionView; bytes: Buffer }> {
    if (revision !== undefined && (!Number.isInteger(revision) || revision < 1)) throw invalid('revision', 'must be a positive integer');
    const workProduct = revision === undefined ? await this.require(id, branch) : await this.latestOrThrow(id, branch);
    let chosen = workProduct.current;
    if (revision !== undefined && revision !== chosen.revision) {
      const lineage = await this.lineage(branch);
      const result = await this.pool.query(
        `SELECT r.* FROM work_product_revisions r ${VISIBLE} WHERE r.work_product_id = $1 AND r.revision = $4`,
        [workProduct.id, ...lineageParams(lineage), revision],
      );
      if (!result.rows[0]) throw revisionNotFound(workProduct.id, workProduct.branch, revision);
      chosen = toRevision(result.rows[0]);
    }
    if (chosen.archived) throw revisionNotFound(workProduct.id, workProduct.branch, chosen.revision, true);
    const sha256 = (chosen.contentHash as string).slice('sha256:'.length);
    const bytes = (await this.blobs.get([sha256])).get(sha256);
    if (!bytes) throw new Error(`twin revision ${workProduct.id}#${chosen.revision} names missing blob ${sha256}`);
    if (reader) await this.recordRead(reader.executionId, workProduct.id, chosen.revision);
    return { workProduct, revision: chosen, bytes };
  }

  /** Hides the work product on the branch (an archival revision); its revisions stay readable by number. */
  async archive(id: unknown, branch: unknown, writer: TwinWriter): Promise<RevisionView> {
    const found = await this.require(id, branch);
    return inTransaction(this.pool, async (client) => {
      await client.query(`SELECT 1 FROM work_products WHERE id = $1 FOR UPDATE`, [found.id]);
      const current = await visibleRevision(client, found.id, await this.lineage(branch));
      if (!current || current.archived) throw workProductNotFound(found.id, found.branch);
      return insertRevision(client, found.id, found.branch, writer, {
        archived: true,
        sha256: null,
        mediaType: null,
        size: 0,
        metadata: {},
      });
    });
  }

  // ── constraints ───────────────────────────────────────────────────────────────────────────────

  /** A new revision of the work product's constraints on the branch (validated per kind). */
  async setConstraints(id: unknown, branch: unknown, constraints: unknown, writer: TwinWriter): Promise<ConstraintsView> {
    const checked = checkConstraints(constraints);
    const found = await this.require(id, branch);
    return inTransaction(this.pool, async (client) => {
      const counter = await client.query(
        `UPDATE work_products SET last_constraints_revision = last_constraints_revision + 1 WHERE id = $1 RETURNING last_constraints_revision`,
        [found.id],
      );
      const result = await client.query(
        `INSERT INTO work_product_constraints (work_product_id, revision, branch, constraints, created_by, execution_id, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp()) RETURNING *`,
        [
          found.id,
          counter.rows[0].last_constraints_revision,
          found.branch,
          JSON.stringify(checked),
          writer.identity,
          writer.executionId ?? null,
        ],
      );
      return toConstraints(result.rows[0]);
    });
  }

  /**
   * The constraints current on the branch; null when none were ever set there (or inherited).
   * `reader` records the constraints revision read as the execution's provenance: what its results
   * were judged against.
   */
  async constraints(
    id: unknown,
    branch: unknown,
    reader?: TwinReader,
  ): Promise<{ workProduct: WorkProductView; constraints: ConstraintsView | null }> {
    const workProduct = await this.require(id, branch);
    const lineage = await this.lineage(branch);
    const result = await this.pool.query(
      `SELECT r.* FROM work_product_constraints r ${VISIBLE} WHERE r.work_product_id = $1 ORDER BY r.revision DESC LIMIT 1`,
      [workProduct.id, ...lineageParams(lineage)],
    );
    const constraints = result.rows[0] ? toConstraints(result.rows[0]) : null;
    if (reader && constraints) {
      await this.pool.query(
        `INSERT INTO twin_constraint_reads (execution_id, work_product_id, revision) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
        [reader.executionId, workProduct.id, constraints.revision],
      );
    }
    return { workProduct, constraints };
  }

  // ── provenance (TwinProvenance) ───────────────────────────────────────────────────────────────

  /** Records that an execution read a revision (idempotent). */
  recordRead(executionId: string, workProductId: string, revision: number): Promise<void> {
    return this.reads.recordRead(executionId, workProductId, revision);
  }

  /** Who wrote a revision (with what that execution read) and which executions read it. */
  provenance(id: unknown, revision: number): Promise<ProvenanceView> {
    return this.reads.provenance(id, revision);
  }

  /** The revisions one execution read (content and constraints) and wrote. */
  accessOf(executionId: string): Promise<ExecutionTwinAccess> {
    return this.reads.accessOf(executionId);
  }

  // ── internals ─────────────────────────────────────────────────────────────────────────────────

  /** The work product with its latest revision visible on the branch, an archival marker included; null when it is not there. */
  private async latest(id: unknown, branch: unknown): Promise<WorkProductView | null> {
    const checkedId = checkWorkProductId(id);
    const lineage = await this.lineage(branch);
    const result = await this.pool.query(
      `SELECT r.*, w.kind, w.name, w.created_by AS wp_created_by, w.created_at AS wp_created_at
       FROM work_product_revisions r ${VISIBLE} JOIN work_products w ON w.id = r.work_product_id
       WHERE r.work_product_id = $1 ORDER BY r.revision DESC LIMIT 1`,
      [checkedId, ...lineageParams(lineage)],
    );
    return result.rows[0] ? toJoinedWorkProduct(result.rows[0], lineage[0]!.branch) : null;
  }

  /** As `latest`, archived or not, but WORK_PRODUCT_NOT_FOUND when it is not on the branch at all. */
  private async latestOrThrow(id: unknown, branch: unknown): Promise<WorkProductView> {
    const found = await this.latest(id, branch);
    if (!found) throw workProductNotFound(checkWorkProductId(id), checkBranchName(branch));
    return found;
  }
}
