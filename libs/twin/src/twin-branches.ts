import type pg from 'pg';
import { LRUCache } from 'lru-cache';
import { TwinFailure, invalid } from './twin-failure.js';
import { type LineageStep, checkBranchName, lineageOf } from './twin-rules.js';
import { branchNotFound, toBranch } from './twin-rows.js';
import type { BranchView, TwinWriter } from './twin-views.js';

const MAX_CACHED_LINEAGES = 1000;

/** The twin's branches: made from a parent at a point in time, never changed, so their lineage is cached. */
export class TwinBranches {
  private readonly lineages = new LRUCache<string, LineageStep[]>({ max: MAX_CACHED_LINEAGES });

  constructor(private readonly pool: pg.Pool) {}

  /**
   * Makes branch `name` from `from` as it was at `at` (default now). `from: null` makes an empty root
   * branch, for promotions only.
   */
  async createBranch(
    request: { name: unknown; from?: unknown; at?: Date; purpose?: 'work' | 'promotion' },
    writer: TwinWriter,
  ): Promise<BranchView> {
    const name = checkBranchName(request.name, 'name');
    const purpose = request.purpose ?? 'work';
    const from = request.from === null && purpose === 'promotion' ? null : checkBranchName(request.from ?? 'main', 'from');
    if (request.at && Number.isNaN(request.at.getTime())) throw invalid('at', 'must be an ISO 8601 time');
    let forkedAt: Date | null = null;
    if (from !== null) {
      const parent = await this.pool.query(`SELECT created_at, now() AS now FROM twin_branches WHERE name = $1`, [from]);
      if (!parent.rows[0]) throw new TwinFailure('BRANCH_NOT_FOUND', `No branch '${from}' to branch from`, { branch: from });
      const { created_at: parentCreatedAt, now } = parent.rows[0] as { created_at: Date; now: Date };
      forkedAt = request.at ?? now;
      if (forkedAt > now || forkedAt < parentCreatedAt) {
        throw invalid('at', `must lie between the creation of '${from}' (${parentCreatedAt.toISOString()}) and now`);
      }
    }
    try {
      const result = await this.pool.query(
        `INSERT INTO twin_branches (name, parent, forked_at, purpose, created_by) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
        [name, from, forkedAt, purpose, writer.identity],
      );
      return toBranch(result.rows[0]);
    } catch (error) {
      if ((error as { code?: string }).code === '23505')
        throw new TwinFailure('BRANCH_EXISTS', `Branch '${name}' exists already`, { branch: name });
      throw error;
    }
  }

  async branch(name: unknown): Promise<BranchView> {
    const checked = checkBranchName(name);
    const result = await this.pool.query(`SELECT * FROM twin_branches WHERE name = $1`, [checked]);
    if (!result.rows[0]) throw branchNotFound(checked);
    return toBranch(result.rows[0]);
  }

  /** Branches by name; promotion branches only when asked for. */
  async listBranches(options: { includePromotion?: boolean; after?: string; limit: number }): Promise<BranchView[]> {
    const result = await this.pool.query(
      `SELECT * FROM twin_branches WHERE ($1 OR purpose = 'work') AND ($2::text IS NULL OR name > $2) ORDER BY name LIMIT $3`,
      [options.includePromotion ?? false, options.after ?? null, options.limit],
    );
    return result.rows.map(toBranch);
  }

  /** The lineage of a branch; BRANCH_NOT_FOUND when there is no such branch. */
  async lineage(name: unknown): Promise<LineageStep[]> {
    const checked = checkBranchName(name);
    const cached = this.lineages.get(checked);
    if (cached) return cached;
    const result = await this.pool.query(
      `WITH RECURSIVE chain AS (
         SELECT name, parent, forked_at, 0 AS depth FROM twin_branches WHERE name = $1
         UNION ALL
         SELECT b.name, b.parent, b.forked_at, c.depth + 1 FROM twin_branches b JOIN chain c ON b.name = c.parent WHERE c.depth < 100
       ) SELECT name, forked_at FROM chain ORDER BY depth`,
      [checked],
    );
    if (result.rows.length === 0) throw branchNotFound(checked);
    const lineage = lineageOf(result.rows.map((row) => ({ name: row.name as string, forkedAt: row.forked_at as Date | null })));
    this.lineages.set(checked, lineage);
    return lineage;
  }
}
