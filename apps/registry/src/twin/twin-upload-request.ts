import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseStrictJson } from '#contracts/index.js';
import { TwinFailure, type TwinLimits } from '#twin/index.js';
import { RequestInvalid } from '../problem/domain-errors.js';
import { parseOrThrow } from '../validation.js';
import { metadataFromText, parseRevisionUploadQuery, parseUploadQuery } from './twin.dto.js';
import { readUpload, uploadMediaType } from './twin-uploads.js';

/** The request header that may carry a revision's metadata beside raw content: the JSON object, in ASCII. */
export const METADATA_HEADER = 'x-twin-metadata';
/** The media type of the JSON form of an upload: content and metadata in one JSON body (not a multipart form). */
export const UPLOAD_FORM_TYPE = 'application/vnd.skill-registry.twin-upload+json';
/** Room in a JSON form for everything but the content: field names, the media type, 16 KiB of metadata with its escapes. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** What an upload asks to store; kind and name only for a new work product. */
export interface WorkProductUpload {
  kind?: string;
  name?: string;
  bytes: Buffer;
  mediaType: string;
  metadata?: Record<string, unknown>;
}

const formFields = {
  media_type: z.string().max(300),
  content: z.string().optional(),
  content_base64: z.string().regex(BASE64, 'must be base64 (RFC 4648, with padding)').optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
};
const oneContent = (form: { content?: string; content_base64?: string }, context: z.RefinementCtx) => {
  if ((form.content === undefined) === (form.content_base64 === undefined)) {
    context.addIssue({ code: 'custom', path: ['content'], message: 'give the content once: as content (text) or content_base64 (bytes)' });
  }
};
export const workProductForm = z
  .object({ kind: z.string().max(100), name: z.string().max(400), ...formFields })
  .strict()
  .superRefine(oneContent);
export const revisionForm = z.object(formFields).strict().superRefine(oneContent);

/**
 * An upload to either route (a new work product, or a revision of one) in one of its two forms:
 * - raw: the body is the content, its media type the Content-Type; metadata in the query
 *   (`metadata=`, URL-encoded JSON) or in the X-Twin-Metadata header (JSON in ASCII). Both share the
 *   request head, which Node bounds at 16 KiB in all, so metadata near its 16 KiB cap does not fit;
 * - the JSON form (Content-Type UPLOAD_FORM_TYPE): kind, name, media type, content (text, or bytes
 *   in base64) and metadata in one body, which takes metadata up to its full cap.
 */
export async function readWorkProductUpload(
  request: FastifyRequest,
  rawQuery: unknown,
  target: 'work-product' | 'revision',
  limits: TwinLimits,
): Promise<WorkProductUpload> {
  const mediaType = uploadMediaType(request);
  const header = request.headers[METADATA_HEADER];
  if (mediaType.split(';')[0]!.trim().toLowerCase() === UPLOAD_FORM_TYPE) {
    const inQuery = Object.keys((rawQuery ?? {}) as object);
    const stray = [
      ...inQuery.map((key) => ({ field: key, where: 'query parameter' })),
      ...(header ? [{ field: 'X-Twin-Metadata', where: 'header' }] : []),
    ];
    if (stray.length > 0) {
      const errors = stray.map(({ field, where }) => ({
        field,
        message: `the JSON form carries everything in its body, not in a ${where}`,
      }));
      throw new RequestInvalid(`Request is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, errors);
    }
    return readForm(request, target, limits);
  }
  const query: { kind?: string; name?: string; metadata?: Record<string, unknown> } =
    target === 'work-product' ? requireKindAndName(parseUploadQuery(rawQuery)) : parseRevisionUploadQuery(rawQuery);
  const fromHeader = header === undefined ? undefined : metadataFromHeader(header);
  if (query.metadata !== undefined && fromHeader !== undefined) {
    const message = 'give metadata once: in the query or in the X-Twin-Metadata header';
    throw new RequestInvalid(`Request is invalid: metadata ${message}`, [{ field: 'metadata', message }]);
  }
  const bytes = await readUpload(request, limits);
  return { kind: query.kind, name: query.name, bytes, mediaType, metadata: query.metadata ?? fromHeader };
}

function requireKindAndName<T extends { kind?: string; name?: string }>(query: T): T {
  const missing = (['kind', 'name'] as const).filter((field) => query[field] === undefined);
  if (missing.length === 0) return query;
  const message = 'is required: in the query with raw content, or in the body of the JSON form';
  throw new RequestInvalid(
    `Query is invalid: ${missing.map((field) => `${field}: ${message}`).join('; ')}`,
    missing.map((field) => ({ field, message })),
  );
}

function metadataFromHeader(value: string | string[]): Record<string, unknown> {
  const refuse = (message: string) =>
    new RequestInvalid(`Request is invalid: X-Twin-Metadata ${message}`, [{ field: 'X-Twin-Metadata', message }]);
  if (Array.isArray(value)) throw refuse('must be sent once');
  // Header bytes arrive as Latin-1: UTF-8 text would be read wrongly, so other characters go as JSON's \u escapes.
  if (!/^[\x20-\x7e]*$/.test(value)) throw refuse('must be ASCII: write other characters as JSON \\u escapes');
  const read = metadataFromText(value);
  if ('problem' in read) throw refuse(read.problem);
  return read.metadata;
}

async function readForm(request: FastifyRequest, target: 'work-product' | 'revision', limits: TwinLimits): Promise<WorkProductUpload> {
  const maxFormBytes = Math.ceil(limits.maxRevisionBytes / 3) * 4 + FORM_OVERHEAD_BYTES;
  let body: Buffer;
  try {
    body = await readUpload(request, { ...limits, maxRevisionBytes: maxFormBytes });
  } catch (error) {
    if (!(error instanceof TwinFailure) || error.reason !== 'TOO_LARGE') throw error;
    throw new TwinFailure(
      'TOO_LARGE',
      `The JSON form is larger than the ${maxFormBytes} bytes that carry the ${limits.maxRevisionBytes} bytes a revision may hold (TWIN_MAX_REVISION_BYTES)`,
      { limit: 'TWIN_MAX_REVISION_BYTES', max_bytes: limits.maxRevisionBytes, max_form_bytes: maxFormBytes },
    );
  }
  // As every JSON body: a malformed one is MALFORMED_JSON (JsonRejected), before its fields are checked.
  const form = parseOrThrow(target === 'work-product' ? workProductForm : revisionForm, parseStrictJson(body), 'body');
  const bytes = form.content_base64 !== undefined ? Buffer.from(form.content_base64, 'base64') : Buffer.from(form.content ?? '', 'utf8');
  const named = form as { kind?: string; name?: string };
  return { kind: named.kind, name: named.name, bytes, mediaType: form.media_type, metadata: form.metadata };
}
