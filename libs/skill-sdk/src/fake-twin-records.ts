/** What a fake twin stores, and the views of it the TwinApi hands out. */
import type { PutWorkProductRequest, TwinConstraint, WorkProduct, WorkProductContent, WorkProductRevision } from './context.js';
import { TwinError } from './errors.js';

export interface StoredRevision extends WorkProductRevision {
  name: string;
  bytes: Uint8Array;
  /** Position in the twin's history: a branch forked at a point in time sees its parent's entries up to it. */
  seq: number;
}

/** An entry of a work product's history on one branch. */
export interface BranchEntry {
  branch: string;
  seq: number;
}

export interface StoredWorkProduct {
  id: string;
  kind: string;
  createdAt: string;
  revisions: StoredRevision[];
  constraints: (BranchEntry & { constraints: TwinConstraint[] })[];
  archivals: BranchEntry[];
}

export interface Branch {
  parent: string | null;
  /** Last history position of the parent this branch sees. */
  forkSeq: number;
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KIND_PATTERN = /^[a-z][a-z0-9_]*$/;
const MEDIA_TYPE_PATTERN = /^[\w.+-]+\/[\w.+-]+$/;

/** Refuses what the platform would refuse: a malformed kind, name, media type, content or metadata. */
export function checkRequest(request: PutWorkProductRequest): void {
  const problems: string[] = [];
  if (!KIND_PATTERN.test(request.kind)) problems.push(`kind '${request.kind}' is not lower_snake_case`);
  if (typeof request.name !== 'string' || request.name.trim() === '') problems.push('name is empty');
  if (!MEDIA_TYPE_PATTERN.test(request.mediaType)) problems.push(`media type '${request.mediaType}' is not <type>/<subtype>`);
  if (typeof request.content !== 'string' && !(request.content instanceof Uint8Array)) problems.push('content is neither text nor bytes');
  const metadata: unknown = request.metadata;
  if (metadata !== undefined && (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)))
    problems.push('metadata is not a JSON object');
  if (problems.length > 0) throw new TwinError('INVALID', `Work product refused: ${problems.join('; ')}`, { problems });
}

/** The TwinApi view of a work product on a branch; copies, so a caller cannot change what is stored. */
export function viewOf(stored: StoredWorkProduct, current: StoredRevision, branch: string): WorkProduct {
  return { id: stored.id, kind: stored.kind, name: current.name, branch, current: revisionOf(current), createdAt: stored.createdAt };
}

function revisionOf(stored: StoredRevision): WorkProductRevision {
  const { revision, branch, contentHash, mediaType, size, metadata, createdBy, executionId, createdAt } = stored;
  return { revision, branch, contentHash, mediaType, size, metadata: structuredClone(metadata), createdBy, executionId, createdAt };
}

/** A revision's content, as a copy. */
export function contentOf(stored: StoredRevision): WorkProductContent {
  const bytes = new Uint8Array(stored.bytes);
  return {
    bytes,
    mediaType: stored.mediaType,
    revision: stored.revision,
    contentHash: stored.contentHash,
    text: () => new TextDecoder().decode(bytes),
  };
}
