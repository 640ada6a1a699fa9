import type {
  BranchView,
  ConstraintsRead,
  ConstraintsView,
  ContentRead,
  ExecutionTwinAccess,
  ProvenanceView,
  RevisionView,
  WorkProductView,
} from '#twin/index.js';
import type {
  BranchWire,
  ConstraintsReadWire,
  ConstraintsWire,
  ExecutionTwinAccessWire,
  ProvenanceWire,
  RevisionWire,
  WorkProductWire,
} from './twin.views.js';

/** The twin's views on the wire (REST and MCP): snake_case, ISO times; exactly the views of twin.views.ts. */

export function presentBranch(branch: BranchView): BranchWire {
  return {
    name: branch.name,
    parent: branch.parent,
    forked_at: branch.forkedAt?.toISOString() ?? null,
    purpose: branch.purpose,
    bytes_written: branch.bytesWritten,
    created_by: branch.createdBy,
    created_at: branch.createdAt.toISOString(),
  };
}

export function presentRevision(revision: RevisionView): RevisionWire {
  return {
    revision: revision.revision,
    branch: revision.branch,
    archived: revision.archived,
    content_hash: revision.contentHash,
    media_type: revision.mediaType,
    size: revision.size,
    metadata: revision.metadata,
    created_by: revision.createdBy,
    execution_id: revision.executionId,
    created_at: revision.createdAt.toISOString(),
  };
}

export function presentWorkProduct(workProduct: WorkProductView): WorkProductWire {
  return {
    id: workProduct.id,
    kind: workProduct.kind,
    name: workProduct.name,
    branch: workProduct.branch,
    uri: twinUri(workProduct.branch, workProduct.id),
    created_by: workProduct.createdBy,
    created_at: workProduct.createdAt.toISOString(),
    current: presentRevision(workProduct.current),
  };
}

export function presentConstraints(workProduct: WorkProductView, constraints: ConstraintsView | null): ConstraintsWire {
  return {
    work_product_id: workProduct.id,
    branch: workProduct.branch,
    revision: constraints?.revision ?? null,
    constraints: constraints?.constraints ?? [],
    created_by: constraints?.createdBy ?? null,
    execution_id: constraints?.executionId ?? null,
    created_at: constraints?.createdAt.toISOString() ?? null,
  };
}

export function presentProvenance(provenance: ProvenanceView): ProvenanceWire {
  return {
    work_product_id: provenance.revision.workProductId,
    revision: presentRevision(provenance.revision),
    written_by: {
      identity: provenance.revision.createdBy,
      execution_id: provenance.revision.executionId,
      read: provenance.writerRead.map(presentContentRead),
      constraints_read: provenance.writerConstraintsRead.map(presentConstraintsRead),
    },
    read_by: provenance.readBy.map((read) => ({ execution_id: read.executionId, at: read.at.toISOString() })),
  };
}

/** What GET /v1/executions/{id}/twin answers. */
export function presentExecutionTwinAccess(
  execution: { id: string; branch: string },
  access: ExecutionTwinAccess,
): ExecutionTwinAccessWire {
  return {
    execution_id: execution.id,
    branch: execution.branch,
    read: access.read.map(presentContentRead),
    constraints_read: access.constraintsRead.map(presentConstraintsRead),
    wrote: access.wrote.map((write) => ({
      work_product_id: write.workProductId,
      revision: write.revision,
      branch: write.branch,
      uri: twinUri(write.branch, write.workProductId),
      at: write.at.toISOString(),
    })),
  };
}

function presentContentRead(read: ContentRead) {
  return { work_product_id: read.workProductId, revision: read.revision, at: read.at.toISOString() };
}

function presentConstraintsRead(read: ConstraintsRead): ConstraintsReadWire {
  return {
    work_product_id: read.workProductId,
    revision: read.revision,
    branch: read.branch,
    constraints: read.constraints,
    at: read.at.toISOString(),
  };
}

/** The MCP resource URI of a work product on a branch. */
export function twinUri(branch: string, id: string): string {
  return `twin://${branch}/${id}`;
}
