import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { TwinFailure, type TwinLimits } from '#twin/index.js';

/**
 * Uploads of work product content arrive as raw bytes of any media type (a STEP file, a mesh, JSON):
 * on the upload routes the body is never parsed, only streamed to the route, capped as it is read.
 * The client's Content-Type is kept aside as the content's media type.
 */
const UPLOAD_TYPE = 'application/x-skill-registry-twin-upload';
const CLIENT_TYPE = 'x-skill-registry-content-type';
/** The upload routes, as TwinController registers them (the router's pattern of the request, not its raw URL). */
const UPLOAD_ROUTES = new Set(['/v1/twin/branches/:branch/work-products', '/v1/twin/branches/:branch/work-products/:id/revisions']);

export function registerTwinUploads(fastify: FastifyInstance): void {
  fastify.addContentTypeParser(UPLOAD_TYPE, (_request, payload, done) => done(null, payload));
  // A callback hook, not an async one: every request passes it, and a promise per request is measurable.
  fastify.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (request.method === 'POST' && UPLOAD_ROUTES.has(request.routeOptions.url as string)) {
      request.headers[CLIENT_TYPE] = request.headers['content-type'] ?? '';
      request.headers['content-type'] = UPLOAD_TYPE;
    }
    done();
  });
}

/** The media type the client sent an upload with. */
export function uploadMediaType(request: FastifyRequest): string {
  const value = request.headers[CLIENT_TYPE];
  return typeof value === 'string' ? value : '';
}

/** Reads an upload, refusing it (TOO_LARGE) as soon as it passes the revision limit. */
export async function readUpload(request: FastifyRequest, limits: TwinLimits): Promise<Buffer> {
  const tooLarge = () =>
    new TwinFailure(
      'TOO_LARGE',
      `Content is larger than the ${limits.maxRevisionBytes} bytes a revision may hold (TWIN_MAX_REVISION_BYTES)`,
      {
        limit: 'TWIN_MAX_REVISION_BYTES',
        max_bytes: limits.maxRevisionBytes,
      },
    );
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxRevisionBytes) throw tooLarge();
  const stream = request.body as Readable | undefined;
  if (!stream || typeof stream[Symbol.asyncIterator] !== 'function') return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  // Not destroyed on the way out: destroying the request resets the connection before the 413 is written (the HTTP
  // edge drains or closes what is left once the answer is sent).
  for await (const chunk of stream.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length;
    if (size > limits.maxRevisionBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}
