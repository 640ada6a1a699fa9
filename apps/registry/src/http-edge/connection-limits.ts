import type { Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import type { AppConfig } from '../config/app-config.js';
import { problem } from '../problem/problem-details.js';

/** How often the HTTP server looks for requests past their time (Node's default is 30 s, too late for 408s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/** How long a refused connection may linger after its answer (end sent) before it is destroyed. */
const LINGER_MS = 2000;

type TimeoutConfig = Pick<AppConfig, 'HTTP_HEADERS_TIMEOUT_MS' | 'HTTP_REQUEST_TIMEOUT_MS' | 'HTTP_KEEP_ALIVE_TIMEOUT_MS'>;

/**
 * The HTTP server's time limits (Fastify's defaults are none, so a client that sends a byte a second
 * holds a connection forever): headers within HTTP_HEADERS_TIMEOUT_MS, the whole request with its
 * body within HTTP_REQUEST_TIMEOUT_MS, an idle keep-alive connection closed after
 * HTTP_KEEP_ALIVE_TIMEOUT_MS. A request past its time is answered 408 by `answerClientError`.
 */
export function connectionOptions(config: TimeoutConfig): Pick<
  FastifyServerOptions,
  'requestTimeout' | 'keepAliveTimeout' | 'clientErrorHandler'
> & {
  http: { headersTimeout: number; connectionsCheckingInterval: number };
} {
  return {
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    http: {
      headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_INTERVAL_MS, config.HTTP_HEADERS_TIMEOUT_MS),
    },
    clientErrorHandler: (error, socket) => answerClientError(error, socket, config),
  };
}

/**
 * Node's HTTP parser refuses some requests before any route or hook sees them: too slow (headers or
 * body past their time), headers over the 16 KiB Node reads, bytes that are not HTTP. Each gets a
 * problem-details answer with a code, like every other refusal, and the connection is closed (the
 * parser cannot go on with it). Connection resets have no one to answer.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket, config: TimeoutConfig): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const body =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? problem(
          408,
          'REQUEST_TIMEOUT',
          `The request was not received in time: headers within ${config.HTTP_HEADERS_TIMEOUT_MS} ms (HTTP_HEADERS_TIMEOUT_MS), the whole request within ${config.HTTP_REQUEST_TIMEOUT_MS} ms (HTTP_REQUEST_TIMEOUT_MS)`,
          { limit: 'HTTP_REQUEST_TIMEOUT_MS' },
        )
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? problem(
            431,
            'HEADERS_TOO_LARGE',
            'The request headers are larger than the 16 KiB the server reads; send large values (work product metadata) in the body',
            { max_bytes: 16 * 1024 },
          )
        : problem(400, 'MALFORMED_REQUEST', 'The request is not valid HTTP/1.1');
  if (socket.writable) {
    const json = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${body.status} ${body.title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
    );
  }
  // end() first, destroy() a moment later: the answer is flushed before the FIN, and a client still sending is not
  // reset before it reads it (a reset can discard the answer in the client's receive buffer).
  socket.end();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
