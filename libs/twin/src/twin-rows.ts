import { TwinFailure } from './twin-failure.js';
import type { BranchView, ConstraintsRead, ConstraintsView, RevisionView, WorkProductView } from './twin-views.js';

/** The twin tables' rows as the store's views, and the refusals that name them. */

export type Row = Record<string, unknown>;

export function toBranch(row: Row): BranchView {
  return {
    name: row.name as string,
    parent: (row.parent as string | null) ?? null,
    forkedAt: (row.forked_at as Date | null) ?? null,
    purpose: row.purpose as BranchView['purpose'],
    bytesWritten: Number(row.bytes_written),
    createdBy: row.created_by as string,
    createdAt: row.created_at as Date,
  };
}

export function toRevision(row: Row): RevisionView {
  return {
    workProductId: row.work_product_id as string,
    revision: row.revision as number,
    branch: row.branch as string,
    archived: row.archived as boolean,
    contentHash: row.sha256 ? `sha256:${row.sha256 as string}` : null,
    mediaType: (row.media_type as string | null) ?? null,
    size: Number(row.size),
    metadata: (row.metadata as Record<string, unknown>) ?? {},
    createdBy: row.created_by as string,
    executionId: (row.execution_id as string | null) ?? null,
    createdAt: row.created_at as Date,
  };
}

export function toWorkProduct(row: Row, branch: string, current: RevisionView): WorkProductView {
  return {
    id: row.id as string,
    kind: row.kind as string,
    name: row.name as string,
    branch,
    createdBy: row.created_by as string,
    createdAt: row.created_at as Date,
    current,
  };
}

/** A revision row joined with its work product's (`wp_created_by`, `wp_created_at`), as the visible-revision queries select it. */
export function toJoinedWorkProduct(row: Row, branch: string): WorkProductView {
  return toWorkProduct(
    { id: row.work_product_id, kind: row.kind, name: row.name, created_by: row.wp_created_by, created_at: row.wp_created_at },
    branch,
    toRevision(row),
  );
}

export function toConstraints(row: Row): ConstraintsView {
  return {
    workProductId: row.work_product_id as string,
    revision: row.revision as number,
    branch: row.branch as string,
    constraints: row.constraints as Record<string, unknown>[],
    createdBy: row.created_by as string,
    executionId: (row.execution_id as string | null) ?? null,
    createdAt: row.created_at as Date,
  };
}

export function toConstraintsRead(row: Row): ConstraintsRead {
  return {
    workProductId: row.work_product_id as string,
    revision: row.revision as number,
    branch: row.branch as string,
    constraints: row.constraints as Record<string, unknown>[],
    at: row.at as Date,
  };
}

export function branchNotFound(branch: string): TwinFailure {
  return new TwinFailure('BRANCH_NOT_FOUND', `No branch '${branch}' in the twin`, { branch });
}

export function workProductNotFound(id: string, branch: string): TwinFailure {
  return new TwinFailure('WORK_PRODUCT_NOT_FOUND', `Work product ${id} not found on branch '${branch}'`, { work_product_id: id, branch });
}

/** An archived work product is not there as current; the answer says how to reach it anyway. */
export function workProductArchived(workProduct: WorkProductView): TwinFailure {
  const { id, branch, current } = workProduct;
  return new TwinFailure(
    'WORK_PRODUCT_NOT_FOUND',
    `Work product ${id} is archived on branch '${branch}' (revision ${current.revision}): its revisions stay readable by number, and a new revision restores it`,
    { work_product_id: id, branch, archived: true, archived_revision: current.revision },
  );
}

export function revisionNotFound(id: string, branch: string, revision: number, archivalMarker = false): TwinFailure {
  const message = archivalMarker
    ? `Revision ${revision} of work product ${id} is its archival marker on branch '${branch}': it has no content`
    : `Work product ${id} has no revision ${revision} on branch '${branch}'`;
  return new TwinFailure('REVISION_NOT_FOUND', message, { work_product_id: id, branch, revision });
}

export function kindMismatch(id: string, kind: string, asked: string): TwinFailure {
  return new TwinFailure('KIND_MISMATCH', `Work product ${id} is a ${kind}, not a ${asked}`, {
    work_product_id: id,
    kind,
    requested_kind: asked,
  });
}
