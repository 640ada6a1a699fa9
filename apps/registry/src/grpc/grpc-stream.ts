import { Metadata, type ServerWritableStream } from '@grpc/grpc-js';
import { type ExecutionContext, createParamDecorator } from '@nestjs/common';

/** The server-streaming call of the current RPC (NestJS passes it third, after the request and its metadata). */
export const GrpcStreamCall = createParamDecorator(
  (_data: unknown, context: ExecutionContext): ServerWritableStream<unknown, unknown> | undefined => context.getArgByIndex(2),
);

/**
 * Sends the response headers now, before the first message: the subscription is accepted, as SSE's `: subscribed`
 * line. A live subscription may wait long for its first event, and without headers a client cannot tell an open
 * stream from one that hangs.
 */
export function announceSubscribed(call: ServerWritableStream<unknown, unknown> | undefined): void {
  call?.sendMetadata(new Metadata());
}
