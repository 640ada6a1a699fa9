import { Injectable } from '@nestjs/common';
import type { PutWorkProductRequest, WorkProduct, WorkProductRevision } from '@skill-registry/sdk';
import { isDatabaseUnavailable } from '#database/pg-pool.js';
import type { ExecutionError, ExecutionEvent } from '#executions/index.js';
import { TwinFailure, TwinStore, type RevisionView, type WorkProductView } from '#twin/index.js';
import type { ToolReplyBody, TwinCallHandler, TwinOp } from '#handler-sandbox/index.js';

/** The execution a handler's twin calls act for. */
export interface TwinCaller {
  executionId: string;
  /** The execution's branch: the default of every call. */
  branch: string;
  /** Each read and write becomes an event of the execution. */
  emit: (event: ExecutionEvent) => void;
}

const MAX_LISTED = 1000;

/**
 * Serves the twin calls of sandboxed handlers (which have no database access) from the twin store:
 * reads and writes default to the execution's branch, writes are recorded as the execution's
 * (`execution:<id>`), every content and constraints read is recorded as its provenance, and each
 * content read and write is an event.
 */
@Injectable()
export class TwinGateway {
  constructor(private readonly twin: TwinStore) {}

  /** The handler the sandbox pool calls for one execution's twin calls. */
  handlerFor(caller: TwinCaller): TwinCallHandler {
    return async (op, args, signal) => {
      if (signal.aborted) return failure('CANCELLED', 'The execution was cancelled; the twin call was not made');
      try {
        return { ok: true, value: await this.serve(caller, op, args) };
      } catch (error) {
        if (error instanceof TwinFailure) return failure(reasonOf(error), error.message, error.details);
        if (isDatabaseUnavailable(error)) return failure('UNAVAILABLE', 'The digital twin is unavailable right now');
        return failure('UNAVAILABLE', `The twin call failed: ${(error as Error).message}`);
      }
    };
  }

  private async serve(caller: TwinCaller, op: TwinOp, args: unknown[]): Promise<unknown> {
    const options = (index: number) => (args[index] ?? {}) as { branch?: string; revision?: number; kind?: string };
    const branchOf = (index: number) => options(index).branch ?? caller.branch;
    switch (op) {
      case 'getWorkProduct': {
        const found = await this.twin.get(args[0], branchOf(1));
        return found ? toSdkWorkProduct(found) : null;
      }
      case 'readContent': {
        const branch = branchOf(1);
        const { revision, bytes } = await this.twin.readContent(args[0], branch, options(1).revision, { executionId: caller.executionId });
        caller.emit({
          type: 'twin_read',
          at: new Date().toISOString(),
          work_product_id: revision.workProductId,
          revision: revision.revision,
          branch,
        });
        return {
          bytes: new Uint8Array(bytes),
          mediaType: revision.mediaType,
          revision: revision.revision,
          contentHash: revision.contentHash,
        };
      }
      case 'putWorkProduct': {
        const request = (args[0] ?? {}) as PutWorkProductRequest;
        const content = request.content;
        const bytes =
          typeof content === 'string' ? Buffer.from(content, 'utf8') : content instanceof Uint8Array ? Buffer.from(content) : null;
        if (bytes === null)
          throw new TwinFailure('INVALID', 'content must be a string or a Uint8Array', {}, [
            { field: 'content', message: 'must be text or bytes' },
          ]);
        const written = await this.twin.put(
          {
            branch: request.branch ?? caller.branch,
            id: request.id,
            kind: request.kind,
            name: request.name,
            bytes,
            mediaType: request.mediaType,
            metadata: request.metadata,
          },
          { identity: `execution:${caller.executionId}`, executionId: caller.executionId },
        );
        caller.emit({
          type: 'twin_written',
          at: new Date().toISOString(),
          work_product_id: written.id,
          revision: written.current.revision,
          branch: written.branch,
          kind: written.kind,
        });
        return { id: written.id, revision: written.current.revision, contentHash: written.current.contentHash, branch: written.branch };
      }
      case 'listWorkProducts':
        return (await this.twin.list(branchOf(0), { kind: options(0).kind, limit: MAX_LISTED })).map(toSdkWorkProduct);
      case 'getConstraints':
        // The constraints revision read is the execution's provenance: what its results were judged against.
        return (await this.twin.constraints(args[0], branchOf(1), { executionId: caller.executionId })).constraints?.constraints ?? [];
    }
  }
}

function failure(reason: string, message: string, details: Record<string, unknown> = {}): ToolReplyBody {
  const code: ExecutionError['code'] = reason === 'NOT_FOUND' || reason === 'BRANCH_NOT_FOUND' ? 'PRECONDITION_FAILED' : 'HANDLER_ERROR';
  return { ok: false, error: { code, message, details: { ...details, reason } } };
}

/** The store's reasons as the SDK's TwinError reasons. */
function reasonOf(error: TwinFailure): string {
  if (error.reason === 'WORK_PRODUCT_NOT_FOUND' || error.reason === 'REVISION_NOT_FOUND') return 'NOT_FOUND';
  if (error.reason === 'BRANCH_NOT_FOUND') return 'BRANCH_NOT_FOUND';
  if (error.reason === 'TOO_LARGE') return 'TOO_LARGE';
  return 'INVALID';
}

function toSdkRevision(revision: RevisionView): WorkProductRevision {
  return {
    revision: revision.revision,
    branch: revision.branch,
    contentHash: revision.contentHash as string,
    mediaType: revision.mediaType as string,
    size: revision.size,
    metadata: revision.metadata,
    createdBy: revision.createdBy,
    executionId: revision.executionId,
    createdAt: revision.createdAt.toISOString(),
  };
}

function toSdkWorkProduct(view: WorkProductView): WorkProduct {
  return {
    id: view.id,
    kind: view.kind,
    name: view.name,
    branch: view.branch,
    current: toSdkRevision(view.current),
    createdAt: view.createdAt.toISOString(),
  };
}
