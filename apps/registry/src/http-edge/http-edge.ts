import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { JsonRejected, assertStorableText, parseStrictJson } from '#contracts/index.js';
import { RequestInvalid } from '../problem/domain-errors.js';
import { sendProblem } from '../problem/problem-details.filter.js';
import { HostGuard } from './host-guard.js';
import { registerTwinUploads } from '../twin/twin-uploads.js';
import { refuseMalformedQuery } from '../query-string.js';

const logger = new Logger('HttpEdge');

/**
 * Most bytes of a refused body (announced over the limit) read and thrown away so the connection can
 * stay open; a longer one is answered at once and the connection closed.
 */
const DRAIN_REFUSED_BODY_MAX_BYTES = 8 * 1024 * 1024;

/**
 * What every HTTP request passes before any route sees it, in one place:
 * - bodies: JSON only through parseStrictJson (UTF-8, bounded depth, unique keys, storable text),
 *   within `bodyLimit`;
 * - query and path parameters: storable text (a NUL or lone surrogate would reach Postgres);
 * - Host and Origin (DNS-rebinding protection, see HostGuard);
 * - a body announced over the limit: refused with 413 before it is read, and then read to its end
 *   and thrown away when it is at most DRAIN_REFUSED_BODY_MAX_BYTES. Fastify closes the connection
 *   on a refused body ("the client may send more"); closing while the client still sends makes the
 *   kernel reset the connection, and the client can lose the 413 it was sent. Without the close,
 *   Node reads what is left of an answered request's body and keeps the connection.
 * Refusals are problem details (JSON-RPC errors on /mcp), like every other error.
 */
export function installHttpEdge(app: NestFastifyApplication, options: { bodyLimit: number; hostGuard: HostGuard }): void {
  app.useBodyParser('application/json', { bodyLimit: options.bodyLimit }, (_request, body, done) => {
    try {
      done(null, parseStrictJson(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  const fastify = app.getHttpAdapter().getInstance();
  // Package archives reach their route as the raw stream: it is capped and checked as it is read (libs/package-store).
  fastify.addContentTypeParser(['application/gzip', 'application/x-gzip'], (_request, payload, done) => done(null, payload));
  // Work product uploads likewise, whatever their media type.
  registerTwinUploads(fastify);
  // Callback hooks, not async ones: every request passes them, and a promise per hook is measurable on the hot reads.
  fastify.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    try {
      options.hostGuard.check(request);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });
  fastify.addHook('onError', (request: FastifyRequest, reply: FastifyReply, error: { code?: string }, done: () => void) => {
    const announced = Number(request.headers['content-length']);
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' && announced <= DRAIN_REFUSED_BODY_MAX_BYTES) reply.removeHeader('connection');
    done();
  });
  // A streamed body (a package archive, a twin upload) answered before it was read to its end — a refusal over a
  // limit, mostly — is drained after the answer, as the JSON 413 is: up to DRAIN_REFUSED_BODY_MAX_BYTES more, and the
  // connection stays usable; past that it is closed. Never destroyed before the answer (that resets the connection
  // and the client reads no answer at all).
  fastify.addHook(
    'onSend',
    (request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
      if (isStream(request.body) && !request.raw.readableEnded) drainUnreadBody(request.raw);
      done(null, payload);
    },
  );
  fastify.addHook('preValidation', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    try {
      checkRequest(request);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });
}

function isStream(body: unknown): body is Readable {
  return typeof (body as { pipe?: unknown } | null)?.pipe === 'function';
}

/** Reads what is left of a request body and throws it away, closing the connection once more than the cap arrives. */
function drainUnreadBody(raw: IncomingMessage): void {
  let drained = 0;
  raw.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_REFUSED_BODY_MAX_BYTES) raw.socket?.destroy();
  });
  raw.on('error', () => undefined);
  raw.resume();
}

function checkRequest(request: FastifyRequest): void {
  checkParameters(request.query, 'query');
  checkParameters(request.params, 'path');
  // Every REST body is an object; `null`, arrays and scalars are refused, not read as "no body". (MCP takes batches.)
  const body = request.body;
  if (
    body !== undefined &&
    !isStream(body) &&
    !request.url.startsWith('/mcp') &&
    (body === null || typeof body !== 'object' || Array.isArray(body))
  ) {
    throw new RequestInvalid('Body must be a JSON object', [
      { field: 'body', message: `must be a JSON object, not ${body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body}` },
    ]);
  }
}

/**
 * Refuses a query parameter whose percent-encoding is malformed, and a query or path parameter that is not storable
 * text (a NUL, a lone surrogate); the read fast path calls it too.
 */
export function checkParameters(values: unknown, where: 'query' | 'path'): void {
  // The query parser marks parameters it could not decode (query-string.ts): 400 naming them, on every route.
  if (where === 'query') refuseMalformedQuery(values);
  try {
    assertStorableText(values);
  } catch (error) {
    if (!(error instanceof JsonRejected)) throw error;
    // A parameter's pointer is `/name` (or `/name/index` when repeated); the field is its name.
    const field = (error.pointer ?? '').split('/')[1] || where;
    throw new RequestInvalid(`Request is invalid: ${where} parameter '${field}' ${error.reason}`, [{ field, message: error.reason }]);
  }
}

/**
 * Fastify's answer to requests its router refuses before any hook runs (a malformed URL such as
 * `/v1/skills/%FF`, an over-long path parameter): problem details like everything else.
 */
export function frameworkErrorHandler(error: Error, request: FastifyRequest, reply: FastifyReply): void {
  sendProblem(reply, request, error, logger);
}
