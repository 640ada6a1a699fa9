import type { BranchView, ConstraintsView, ExecutionTwinAccess, ProvenanceView, RevisionView, WorkProductView } from '#twin/index.js';
import {
  presentBranch,
  presentConstraints,
  presentExecutionTwinAccess,
  presentProvenance,
  presentRevision,
  presentWorkProduct,
} from './twin.presenter.js';
import type { ConstraintsReadWire } from './twin.views.js';
import { toStruct, toTimestamp } from '../grpc/proto-values.js';

/**
 * The twin's proto messages (skill_registry.proto, service Twin) built from the REST presenters'
 * output, as grpc-messages.ts does for the catalog: the same data, only the encodings differ
 * (Struct for JSON, Timestamp for ISO strings, absent for null).
 */

export function branchMessage(branch: BranchView) {
  const json = presentBranch(branch);
  return { ...json, parent: json.parent ?? undefined, forked_at: toTimestamp(json.forked_at), created_at: toTimestamp(json.created_at) };
}

export function revisionMessage(revision: RevisionView) {
  const json = presentRevision(revision);
  return {
    ...json,
    content_hash: json.content_hash ?? undefined,
    media_type: json.media_type ?? undefined,
    metadata: toStruct(json.metadata),
    execution_id: json.execution_id ?? undefined,
    created_at: toTimestamp(json.created_at),
  };
}

export function workProductMessage(workProduct: WorkProductView) {
  const json = presentWorkProduct(workProduct);
  return { ...json, created_at: toTimestamp(json.created_at), current: revisionMessage(workProduct.current) };
}

export function constraintsMessage(workProduct: WorkProductView, constraints: ConstraintsView | null) {
  const json = presentConstraints(workProduct, constraints);
  return {
    ...json,
    revision: json.revision ?? undefined,
    constraints: json.constraints.map((constraint) => toStruct(constraint)),
    created_by: json.created_by ?? undefined,
    execution_id: json.execution_id ?? undefined,
    created_at: toTimestamp(json.created_at),
  };
}

export function provenanceMessage(provenance: ProvenanceView) {
  const json = presentProvenance(provenance);
  return {
    work_product_id: json.work_product_id,
    revision: revisionMessage(provenance.revision),
    written_by: {
      identity: json.written_by.identity,
      execution_id: json.written_by.execution_id ?? undefined,
      read: json.written_by.read.map(contentReadMessage),
      constraints_read: json.written_by.constraints_read.map(constraintsReadMessage),
    },
    read_by: json.read_by.map((read) => ({ execution_id: read.execution_id, at: toTimestamp(read.at) })),
  };
}

function contentReadMessage(read: { work_product_id: string; revision: number; at: string }) {
  return { ...read, at: toTimestamp(read.at) };
}

function constraintsReadMessage(read: ConstraintsReadWire) {
  return { ...read, constraints: read.constraints.map((constraint) => toStruct(constraint)), at: toTimestamp(read.at) };
}

/** The bytes of a revision with what REST sends as headers (ETag = content hash, X-Revision, Content-Type). */
export function contentMessage(workProduct: WorkProductView, revision: RevisionView, bytes: Buffer) {
  return {
    id: workProduct.id,
    branch: workProduct.branch,
    revision: revision.revision,
    content_hash: revision.contentHash ?? '',
    media_type: revision.mediaType ?? '',
    size: bytes.length,
    content: bytes,
  };
}

/** What GET /v1/executions/{id}/twin answers. */
export function executionTwinAccessMessage(execution: { id: string; branch: string }, access: ExecutionTwinAccess) {
  const json = presentExecutionTwinAccess(execution, access);
  return {
    ...json,
    read: json.read.map(contentReadMessage),
    constraints_read: json.constraints_read.map(constraintsReadMessage),
    wrote: json.wrote.map((write) => ({ ...write, at: toTimestamp(write.at) })),
  };
}
