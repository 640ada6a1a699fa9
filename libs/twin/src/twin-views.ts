/** What the twin store returns; transports present these (snake_case on the wire). */

export interface BranchView {
  name: string;
  parent: string | null;
  /** The moment of the parent this branch was made from (null for main and promotion branches). */
  forkedAt: Date | null;
  purpose: 'work' | 'promotion';
  bytesWritten: number;
  createdBy: string;
  createdAt: Date;
}

export interface RevisionView {
  workProductId: string;
  revision: number;
  branch: string;
  /** An archival marker: the work product is hidden on the branch from this revision on. */
  archived: boolean;
  /** `sha256:<hex>` of the content (null for an archival marker). */
  contentHash: string | null;
  mediaType: string | null;
  size: number;
  metadata: Record<string, unknown>;
  createdBy: string;
  executionId: string | null;
  createdAt: Date;
}

export interface WorkProductView {
  id: string;
  kind: string;
  name: string;
  /** The branch this view is of. */
  branch: string;
  createdBy: string;
  createdAt: Date;
  current: RevisionView;
}

export interface ConstraintsView {
  workProductId: string;
  revision: number;
  branch: string;
  constraints: Record<string, unknown>[];
  createdBy: string;
  executionId: string | null;
  createdAt: Date;
}

/** A revision of a work product's content an execution read. */
export interface ContentRead {
  workProductId: string;
  revision: number;
  at: Date;
}

/** A revision of a work product's constraints an execution read: what its results were judged against. */
export interface ConstraintsRead {
  workProductId: string;
  /** The constraints revision (numbered per work product, like ConstraintsView.revision). */
  revision: number;
  /** The branch that constraints revision was set on. */
  branch: string;
  constraints: Record<string, unknown>[];
  at: Date;
}

export interface ProvenanceView {
  revision: RevisionView;
  /** Executions that read this revision, oldest first. */
  readBy: { executionId: string; at: Date }[];
  /**
   * What the execution that wrote this revision read (empty when a token wrote it): the content
   * revisions, and the constraints revisions the result was judged against.
   */
  writerRead: ContentRead[];
  writerConstraintsRead: ConstraintsRead[];
}

/** What one execution read and wrote. */
export interface ExecutionTwinAccess {
  read: ContentRead[];
  constraintsRead: ConstraintsRead[];
  wrote: { workProductId: string; revision: number; branch: string; at: Date }[];
}

/** Who writes: a token identity, and the execution when a skill writes. */
export interface TwinWriter {
  identity: string;
  executionId?: string | null;
}
