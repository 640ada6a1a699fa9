import { createHash, randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { PutWorkProductRequest, TwinApi, TwinBranchOption, TwinConstraint, WorkProduct, WorkProductContent } from './context.js';
import { TwinError } from './errors.js';
import {
  checkRequest,
  contentOf,
  UUID_PATTERN,
  viewOf,
  type Branch,
  type BranchEntry,
  type StoredRevision,
  type StoredWorkProduct,
} from './fake-twin-records.js';

/** A work product to put into a fake twin before a test: revision 1 of a new one, or a revision of `id`. */
export interface FakeWorkProductSeed {
  /** A UUID; omit for a new random one. An id seeded before gets a new revision on `branch`. */
  id?: string;
  kind: string;
  name: string;
  /** Text is stored as UTF-8. */
  content: string | Uint8Array;
  mediaType: string;
  metadata?: Record<string, unknown>;
  /** Default `main`; another branch must be one of FakeTwinOptions.branches. */
  branch?: string;
  /** Constraints of the work product on that branch. */
  constraints?: TwinConstraint[];
}

/** A branch of a fake twin: a name, forked from `main`, or `{ name, from }`. */
export type FakeBranchSeed = string | { name: string; from?: string };

/** One revision a handler read or wrote, on the branch it did so. */
export interface TwinAccess {
  id: string;
  revision: number;
  branch: string;
}

/** Options of createFakeTwin. */
export interface FakeTwinOptions {
  /**
   * Branches to create, in order (`main` always exists). They are forked after the work products of `main` are
   * seeded, so they see them, like a branch made from a populated twin; the work products naming another branch
   * are seeded last. For a branch forked before something was written, call `createBranch` yourself.
   */
  branches?: FakeBranchSeed[];
  workProducts?: FakeWorkProductSeed[];
  /** Execution the handler runs as: its writes are `createdBy` `execution:<id>` (default `test-execution`). */
  executionId?: string;
  /** Branch of calls that name none, as the executor uses the execution's branch (default `main`). */
  defaultBranch?: string;
}

/** An in-memory digital twin with the platform's branch and revision rules, for skill unit tests. */
export interface FakeTwin extends TwinApi {
  /** Every revision whose content was read (`readContent`), in order. */
  readonly reads: TwinAccess[];
  /** Every `putWorkProduct`, with the revision it returned (the current one when the write changed nothing). */
  readonly writes: TwinAccess[];
  /** Put a work product in place as a test's precondition (not recorded in `writes`). */
  seed(item: FakeWorkProductSeed): { id: string; revision: number; contentHash: string; branch: string };
  /** Create a branch that sees `from`'s revisions up to now, and only its own afterwards. */
  createBranch(name: string, from?: string): void;
  /** Replace the constraints of a work product on a branch. */
  setConstraints(id: string, constraints: TwinConstraint[], options?: TwinBranchOption): void;
  /** Hide a work product on a branch (and on branches forked from it later), as the platform's archival does. */
  archive(id: string, options?: TwinBranchOption): void;
  /** The same twin (same work products, reads and writes) with calls that name no branch going to `branch`. */
  forBranch(branch: string): FakeTwin;
}

/** Build a fake digital twin: `main` plus `branches`, holding `workProducts`. */
export function createFakeTwin(options: FakeTwinOptions = {}): FakeTwin {
  const twin = new InMemoryTwin(new TwinState(options.executionId ?? 'test-execution'), options.defaultBranch ?? 'main');
  const onMain = (item: FakeWorkProductSeed) => (item.branch ?? 'main') === 'main';
  const seeds = options.workProducts ?? [];
  for (const item of seeds.filter(onMain)) twin.seed(item);
  for (const branch of options.branches ?? []) {
    if (typeof branch === 'string') twin.createBranch(branch);
    else twin.createBranch(branch.name, branch.from);
  }
  for (const item of seeds.filter((seed) => !onMain(seed))) twin.seed(item);
  return twin;
}

const LIST_LIMIT = 1000;

/** What every branch view of one fake twin shares. */
class TwinState {
  readonly reads: TwinAccess[] = [];
  readonly writes: TwinAccess[] = [];
  readonly branches = new Map<string, Branch>([['main', { parent: null, forkSeq: 0 }]]);
  readonly workProducts = new Map<string, StoredWorkProduct>();
  seq = 0;

  constructor(readonly executionId: string) {}
}

class InMemoryTwin implements FakeTwin {
  constructor(
    private readonly state: TwinState,
    private readonly defaultBranch: string,
  ) {}

  get reads(): TwinAccess[] {
    return this.state.reads;
  }

  get writes(): TwinAccess[] {
    return this.state.writes;
  }

  forBranch(branch: string): FakeTwin {
    return new InMemoryTwin(this.state, branch);
  }

  async getWorkProduct(id: string, options?: TwinBranchOption): Promise<WorkProduct | null> {
    const branch = this.branchOf(options?.branch);
    const found = this.lookUp(id, branch);
    return found ? viewOf(found.stored, found.current, branch) : null;
  }

  async readContent(id: string, options?: TwinBranchOption & { revision?: number }): Promise<WorkProductContent> {
    const branch = this.branchOf(options?.branch);
    const wanted = options?.revision;
    // As on the platform: a numbered revision stays readable when the work product is archived on the branch.
    const { stored, current } = wanted === undefined ? this.existing(id, branch) : this.present(id, branch);
    const revision =
      wanted === undefined ? current : stored.revisions.find((r) => r.revision === wanted && this.visible(branch, r.branch, r.seq));
    if (!revision) {
      throw new TwinError('NOT_FOUND', `Revision ${wanted} of work product ${id} not found on branch ${branch}`, {
        work_product_id: id,
        branch,
        revision: wanted,
      });
    }
    this.state.reads.push({ id, revision: revision.revision, branch });
    return contentOf(revision);
  }

  async putWorkProduct(request: PutWorkProductRequest): Promise<{ id: string; revision: number; contentHash: string; branch: string }> {
    const branch = this.branchOf(request.branch);
    // A revision is added only to a work product on the writer's branch, as on the platform (one archived there is restored).
    if (request.id !== undefined) this.present(request.id, branch);
    const written = this.write({ ...request, branch }, `execution:${this.state.executionId}`, this.state.executionId);
    this.state.writes.push({ id: written.id, revision: written.revision, branch });
    return written;
  }

  async listWorkProducts(options?: TwinBranchOption & { kind?: string }): Promise<WorkProduct[]> {
    const branch = this.branchOf(options?.branch);
    const found: WorkProduct[] = [];
    for (const stored of this.state.workProducts.values()) {
      if (options?.kind !== undefined && stored.kind !== options.kind) continue;
      const here = this.lookUp(stored.id, branch);
      if (here) found.push(viewOf(stored, here.current, branch));
    }
    return found.slice(0, LIST_LIMIT);
  }

  async getConstraints(id: string, options?: TwinBranchOption): Promise<TwinConstraint[]> {
    const branch = this.branchOf(options?.branch);
    const { stored } = this.existing(id, branch);
    return structuredClone(this.latest(stored.constraints, branch)?.constraints ?? []);
  }

  seed(item: FakeWorkProductSeed): { id: string; revision: number; contentHash: string; branch: string } {
    if (item.id !== undefined && !UUID_PATTERN.test(item.id)) {
      throw new TwinError('INVALID', `Work product id ${item.id} is not a UUID`, { work_product_id: item.id });
    }
    const branch = this.branchOf(item.branch ?? 'main');
    const written = this.write({ ...item, branch }, 'test-seed', null);
    if (item.constraints) this.setConstraints(written.id, item.constraints, { branch });
    return written;
  }

  createBranch(name: string, from = 'main'): void {
    if (this.state.branches.has(name)) throw new TwinError('INVALID', `Branch ${name} already exists`, { branch: name });
    this.state.branches.set(name, { parent: this.branchOf(from), forkSeq: this.state.seq });
  }

  setConstraints(id: string, constraints: TwinConstraint[], options?: TwinBranchOption): void {
    const branch = this.branchOf(options?.branch);
    const { stored } = this.existing(id, branch);
    constraints.forEach((constraint, index) => {
      if (typeof constraint?.kind !== 'string' || constraint.kind.trim() === '') {
        throw new TwinError('INVALID', `constraints[${index}] of work product ${id} has no kind`, { work_product_id: id, index });
      }
    });
    stored.constraints.push({ branch, seq: ++this.state.seq, constraints: structuredClone(constraints) });
  }

  archive(id: string, options?: TwinBranchOption): void {
    const branch = this.branchOf(options?.branch);
    this.existing(id, branch).stored.archivals.push({ branch, seq: ++this.state.seq });
  }

  /** Writes a revision on `request.branch` unless the current one there already holds the same content. */
  private write(request: PutWorkProductRequest & { branch: string }, createdBy: string, executionId: string | null) {
    checkRequest(request);
    const bytes = typeof request.content === 'string' ? new TextEncoder().encode(request.content) : new Uint8Array(request.content);
    const metadata = structuredClone(request.metadata ?? {});
    const contentHash = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    const now = new Date().toISOString();
    let stored = request.id === undefined ? undefined : this.state.workProducts.get(request.id);
    if (stored && stored.kind !== request.kind) {
      throw new TwinError('INVALID', `Work product ${stored.id} is a ${stored.kind}, not a ${request.kind}`, {
        work_product_id: stored.id,
        kind: stored.kind,
      });
    }
    if (!stored) {
      stored = { id: request.id ?? randomUUID(), kind: request.kind, createdAt: now, revisions: [], constraints: [], archivals: [] };
      this.state.workProducts.set(stored.id, stored);
    }
    const current = this.lookUp(stored.id, request.branch)?.current;
    // Writes are idempotent (retries are safe): the same bytes, media type and metadata again make no new revision.
    if (
      current &&
      current.contentHash === contentHash &&
      current.mediaType === request.mediaType &&
      isDeepStrictEqual(current.metadata, metadata)
    ) {
      return { id: stored.id, revision: current.revision, contentHash, branch: request.branch };
    }
    const revision: StoredRevision = {
      revision: Math.max(0, ...stored.revisions.map((existing) => existing.revision)) + 1,
      branch: request.branch,
      contentHash,
      mediaType: request.mediaType,
      size: bytes.length,
      metadata,
      createdBy,
      executionId,
      createdAt: now,
      name: request.name,
      bytes,
      seq: ++this.state.seq,
    };
    stored.revisions.push(revision);
    return { id: stored.id, revision: revision.revision, contentHash, branch: request.branch };
  }

  private branchOf(requested: string | undefined): string {
    const name = requested ?? this.defaultBranch;
    if (!this.state.branches.has(name)) throw new TwinError('BRANCH_NOT_FOUND', `Branch ${name} not found`, { branch: name });
    return name;
  }

  /** Whether an entry written on `written` at history position `at` is seen on `branch`, through the fork points. */
  private visible(branch: string, written: string, at: number): boolean {
    let limit = Infinity;
    for (let current: string | null = branch; current !== null;) {
      if (current === written) return at <= limit;
      const info: Branch = this.state.branches.get(current)!;
      limit = Math.min(limit, info.forkSeq);
      current = info.parent;
    }
    return false;
  }

  private latest<T extends BranchEntry>(entries: T[], branch: string): T | undefined {
    let found: T | undefined;
    for (const entry of entries) if (this.visible(branch, entry.branch, entry.seq) && (!found || entry.seq > found.seq)) found = entry;
    return found;
  }

  /** The work product with its current revision on the branch; null when it is not there or archived there. */
  private lookUp(id: string, branch: string): { stored: StoredWorkProduct; current: StoredRevision } | null {
    const stored = this.state.workProducts.get(id);
    const current = stored && this.latest(stored.revisions, branch);
    if (!stored || !current) return null;
    const archival = this.latest(stored.archivals, branch);
    return archival && archival.seq > current.seq ? null : { stored, current };
  }

  /** The work product with its latest revision visible on the branch, archived there or not. */
  private present(id: string, branch: string): { stored: StoredWorkProduct; current: StoredRevision } {
    const stored = this.state.workProducts.get(id);
    const current = stored && this.latest(stored.revisions, branch);
    if (!stored || !current)
      throw new TwinError('NOT_FOUND', `Work product ${id} not found on branch ${branch}`, { work_product_id: id, branch });
    return { stored, current };
  }

  private existing(id: string, branch: string): { stored: StoredWorkProduct; current: StoredRevision } {
    const found = this.lookUp(id, branch);
    if (!found) throw new TwinError('NOT_FOUND', `Work product ${id} not found on branch ${branch}`, { work_product_id: id, branch });
    return found;
  }
}
