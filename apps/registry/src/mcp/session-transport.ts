import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { type JSONRPCMessage, ProtocolErrorCode } from '@modelcontextprotocol/server';

/** Ids of resources/read requests still unanswered, per session; more are only a client that never waits. */
const MAX_PENDING_READS = 1000;

/**
 * The Streamable HTTP transport of a 2025-era session, answering `resources/read` of a resource that
 * does not exist with the code of the revisions these sessions speak: JSON-RPC -32002 "Resource not
 * found" (2025-06-18 and 2025-11-25, Resources › Error Handling), data `{ uri }`. The SDK (2.4) sends
 * -32602 on every revision — what 2026-07-28 requires, so per-request 2026-07-28 serving keeps it —
 * and maps a handler's -32002 to -32602 on its way out, so the code can only be set here, at the
 * transport of the one era that uses it. The SDK's clients read either code as ResourceNotFoundError.
 */
export class SessionTransport extends NodeStreamableHTTPServerTransport {
  private readonly pendingReads = new Set<string | number>();

  override async handleRequest(request: IncomingMessage, response: ServerResponse, parsedBody?: unknown): Promise<void> {
    for (const message of Array.isArray(parsedBody) ? parsedBody : [parsedBody]) {
      const { method, id } = (message ?? {}) as { method?: unknown; id?: unknown };
      if (method !== 'resources/read' || (typeof id !== 'string' && typeof id !== 'number')) continue;
      if (this.pendingReads.size >= MAX_PENDING_READS) this.pendingReads.delete(this.pendingReads.values().next().value!);
      this.pendingReads.add(id);
    }
    return super.handleRequest(request, response, parsedBody);
  }

  override async send(message: JSONRPCMessage, options?: Parameters<NodeStreamableHTTPServerTransport['send']>[1]): Promise<void> {
    const answered = 'id' in message && (typeof message.id === 'string' || typeof message.id === 'number') ? message.id : undefined;
    if (answered === undefined || !this.pendingReads.delete(answered) || !('error' in message)) return super.send(message, options);
    return super.send(
      isResourceNotFound(message.error) ? { ...message, error: { ...message.error, code: RESOURCE_NOT_FOUND } } : message,
      options,
    );
  }
}

const RESOURCE_NOT_FOUND = ProtocolErrorCode.ResourceNotFound;

/** The SDK's ResourceNotFoundError on the wire: -32602 whose data is exactly `{ uri }`. */
function isResourceNotFound(error: { code: number; data?: unknown }): boolean {
  const data = error.data as Record<string, unknown> | null | undefined;
  return error.code === ProtocolErrorCode.InvalidParams && !!data && typeof data.uri === 'string' && Object.keys(data).length === 1;
}
