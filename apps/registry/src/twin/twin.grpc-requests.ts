import type { PutRequest } from '#twin/index.js';
import { parseBranchListQuery, parseContentQuery, parseRevisionParam, parseWorkProductListQuery } from './twin.dto.js';
import { compact, given, required } from '../grpc/grpc-fields.js';
import { type ProtoStruct, type ProtoTimestamp, fromStruct, fromTimestamp } from '../grpc/proto-values.js';

/**
 * Twin RPC requests to the twin store's inputs. Paging and revision numbers go through the REST
 * routes' parsers (same limits); names, kinds, ids, media types, metadata and constraints are
 * checked by the store itself (libs/twin's rules), as they are for REST. An empty `branch` is main.
 */

function branchOf(branch: string | undefined): string {
  return given(branch) ?? 'main';
}

export interface ListBranchesRequest {
  include_promotion?: boolean;
  cursor?: string;
  limit?: number;
}

export function parseListBranches(request: ListBranchesRequest) {
  const query = parseBranchListQuery(compact({ cursor: given(request.cursor), limit: given(request.limit) }));
  return { includePromotion: request.include_promotion === true, after: query.cursor, limit: query.limit };
}

export interface CreateBranchRequest {
  name?: string;
  from?: string;
  at?: ProtoTimestamp | null;
}

export function parseCreateBranch(request: CreateBranchRequest) {
  return {
    name: required(request.name, 'name'),
    from: given(request.from),
    at: fromTimestamp(request.at, 'at') ?? undefined,
  };
}

export interface PutWorkProductRequest {
  branch?: string;
  id?: string;
  kind?: string;
  name?: string;
  content?: Buffer;
  media_type?: string;
  metadata?: ProtoStruct | null;
}

/** The put; a revision may leave the kind to the work product's own. */
export function parsePutWorkProduct(request: PutWorkProductRequest): PutRequest {
  const id = given(request.id);
  return {
    branch: branchOf(request.branch),
    id,
    kind: id === undefined ? required(request.kind, 'kind') : given(request.kind),
    name: id === undefined ? required(request.name, 'name') : given(request.name),
    bytes: request.content ?? Buffer.alloc(0),
    mediaType: request.media_type ?? '',
    metadata: request.metadata ? fromStruct(request.metadata) : undefined,
  };
}

export interface ListWorkProductsRequest {
  branch?: string;
  kind?: string;
  name?: string;
  cursor?: string;
  limit?: number;
  archived?: boolean;
}

export function parseListWorkProducts(request: ListWorkProductsRequest) {
  const query = parseWorkProductListQuery(
    compact({ kind: given(request.kind), name: given(request.name), cursor: given(request.cursor), limit: given(request.limit) }),
  );
  return {
    branch: branchOf(request.branch),
    query: { kind: query.kind, name: query.name, after: query.cursor, limit: query.limit, archived: request.archived === true },
  };
}

/** A work product on a branch: GetWorkProduct, ListRevisions, ArchiveWorkProduct, Get/SetConstraints. */
export interface WorkProductRequest {
  branch?: string;
  id?: string;
}

export function parseWorkProductRef(request: WorkProductRequest) {
  return { branch: branchOf(request.branch), id: required(request.id, 'id') };
}

/** 0 is the current revision; others within the REST route's range. */
export function parseContentRevision(revision: number | undefined): number | undefined {
  return parseContentQuery(compact({ revision: given(revision) })).revision;
}

export function parseSetConstraints(request: WorkProductRequest & { constraints?: ProtoStruct[] }) {
  return { ...parseWorkProductRef(request), constraints: (request.constraints ?? []).map(fromStruct) };
}

export function parseProvenance(request: { id?: string; revision?: number }) {
  return { id: required(request.id, 'id'), revision: parseRevisionParam(String(request.revision ?? 0)) };
}
