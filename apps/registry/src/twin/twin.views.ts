import { z } from 'zod';
import { apiComponent } from '../openapi/openapi-components.js';
import { isoDateTime, jsonObject, nextCursor } from '../openapi/wire-types.js';

/** The wire views of the digital twin (twin.presenter.ts returns exactly these). */

export const branchView = apiComponent(
  'TwinBranch',
  z.object({
    name: z.string(),
    parent: z.string().nullable(),
    forked_at: isoDateTime.nullable().describe('The moment of the parent this branch was made from (null for main and promotion branches)'),
    purpose: z.enum(['work', 'promotion']),
    bytes_written: z.number().int(),
    created_by: z.string(),
    created_at: isoDateTime,
  }),
  'A branch of the digital twin',
);

export const branchListView = apiComponent('TwinBranchList', z.object({ items: z.array(branchView), next_cursor: nextCursor }));

export const revisionView = apiComponent(
  'TwinRevision',
  z.object({
    revision: z.number().int(),
    branch: z.string(),
    archived: z.boolean().describe('An archival marker: the work product is hidden on the branch from this revision on'),
    content_hash: z.string().nullable().describe('`sha256:<hex>` of the content (null for an archival marker)'),
    media_type: z.string().nullable(),
    size: z.number().int(),
    metadata: jsonObject,
    created_by: z.string(),
    execution_id: z.string().nullable(),
    created_at: isoDateTime,
  }),
  'One immutable revision of a work product',
);

export const revisionListView = apiComponent('TwinRevisionList', z.object({ items: z.array(revisionView) }));

export const workProductView = apiComponent(
  'TwinWorkProduct',
  z.object({
    id: z.string(),
    kind: z.string(),
    name: z.string(),
    branch: z.string(),
    uri: z.string().describe('The MCP resource URI, `twin://<branch>/<id>`'),
    created_by: z.string(),
    created_at: isoDateTime,
    current: revisionView,
  }),
  'A work product as current on a branch',
);

export const workProductListView = apiComponent(
  'TwinWorkProductList',
  z.object({ items: z.array(workProductView), next_cursor: nextCursor }),
);

export const constraintsView = apiComponent(
  'TwinConstraints',
  z.object({
    work_product_id: z.string(),
    branch: z.string(),
    revision: z.number().int().nullable(),
    constraints: z.array(jsonObject).describe('`{ kind, ...fields }`, each valid against the schema of its kind'),
    created_by: z.string().nullable(),
    execution_id: z.string().nullable(),
    created_at: isoDateTime.nullable(),
  }),
  "A work product's constraints current on a branch (revision null when none are set)",
);

const contentReadView = z.object({ work_product_id: z.string(), revision: z.number().int(), at: isoDateTime });

const constraintsReadView = apiComponent(
  'TwinConstraintsRead',
  z.object({
    work_product_id: z.string(),
    revision: z.number().int().describe('The constraints revision read'),
    branch: z.string().describe('The branch that constraints revision was set on'),
    constraints: z.array(jsonObject).describe('The constraints of that revision'),
    at: isoDateTime,
  }),
  "A revision of a work product's constraints an execution read: what its results were judged against",
);

export const provenanceView = apiComponent(
  'TwinProvenance',
  z.object({
    work_product_id: z.string(),
    revision: revisionView,
    written_by: z.object({
      identity: z.string(),
      execution_id: z.string().nullable(),
      read: z.array(contentReadView).describe('The content revisions the writing execution read (empty when a token wrote it)'),
      constraints_read: z
        .array(constraintsReadView)
        .describe('The constraints revisions the writing execution read: what the result was judged against (empty when a token wrote it)'),
    }),
    read_by: z.array(z.object({ execution_id: z.string(), at: isoDateTime })),
  }),
  'Who wrote a revision (and what that execution read) and which executions read it',
);

export const executionTwinAccessView = apiComponent(
  'ExecutionTwinAccess',
  z.object({
    execution_id: z.string(),
    branch: z.string(),
    read: z.array(contentReadView).describe('Content revisions it read'),
    constraints_read: z.array(constraintsReadView).describe('Constraints revisions it read: what its results were judged against'),
    wrote: z.array(
      z.object({ work_product_id: z.string(), revision: z.number().int(), branch: z.string(), uri: z.string(), at: isoDateTime }),
    ),
  }),
  'The twin revisions an execution read (content and constraints) and wrote',
);

export type BranchWire = z.input<typeof branchView>;
export type RevisionWire = z.input<typeof revisionView>;
export type WorkProductWire = z.input<typeof workProductView>;
export type ConstraintsWire = z.input<typeof constraintsView>;
export type ProvenanceWire = z.input<typeof provenanceView>;
export type ConstraintsReadWire = z.input<typeof constraintsReadView>;
export type ExecutionTwinAccessWire = z.input<typeof executionTwinAccessView>;
