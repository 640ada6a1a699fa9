import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PlatformEvent } from '#executions/index.js';
import type { PlatformEventView } from './events.views.js';

/** The public form of a platform event: exactly the `PlatformEvent` view of the OpenAPI document. */
function presentPlatformEvent(event: PlatformEvent): PlatformEventView {
  return event as unknown as PlatformEventView;
}

/**
 * Answers with Server-Sent Events until the client goes (or reading fails): `id`, `event` (the type) and `data`
 * (the PlatformEvent) per event, a comment line while the stream is quiet (so proxies keep it open and a gone
 * client is noticed), `event: error` before an end the server did not choose.
 */
export async function streamPlatformEvents(
  request: FastifyRequest,
  reply: FastifyReply,
  events: AsyncGenerator<PlatformEvent | null>,
  controller: AbortController,
): Promise<void> {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  // Headers now, before the first event (a live subscription may wait long for one).
  raw.write(': subscribed\n\n');
  request.raw.on('close', () => controller.abort());
  try {
    for await (const event of events) {
      if (event === null) raw.write(': keep-alive\n\n');
      else raw.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(presentPlatformEvent(event))}\n\n`);
    }
  } catch {
    if (!controller.signal.aborted) {
      raw.write(`event: error\ndata: ${JSON.stringify({ message: 'event stream interrupted; reconnect with Last-Event-ID' })}\n\n`);
    }
  } finally {
    controller.abort();
    raw.end();
  }
}
