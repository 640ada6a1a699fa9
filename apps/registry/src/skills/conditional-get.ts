import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type DeprecationSignals, deprecationSignalHeaders } from './deprecation-headers.js';

/** A read answered with pre-serialised JSON: the body, its entity tag and the deprecation signals sent with it. */
export interface JsonRead {
  /** UTF-8 JSON, encoded once (a cached read is sent without serialising or encoding anything). */
  body: Buffer;
  /** A strong entity tag (quoted) that changes whenever `body` does. */
  etag: string;
  deprecation: DeprecationSignals | null;
}

/**
 * Why no catalog read is `immutable`: a version's package (files, schemas, content hash) never
 * changes once REGISTERED, and the package routes serve it `immutable`; but every JSON view of a
 * skill or version also carries lifecycle state (status, status_reason, deprecation, updated_at),
 * pending_dependencies derived from other skills, and for a current version tools_status — all of
 * which can change at any time, and no status is final (ARCHIVED can reappear). So each of these
 * bodies may change: caches keep it but revalidate it every time, which costs a 304 with no body.
 */
const CATALOG_READ_CACHE_CONTROL = 'no-cache';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A strong entity tag of `representation`: its SHA-256, base64url, cut to 22 characters (132 bits). */
export function strongEtag(representation: string | Buffer): string {
  return `"${createHash('sha256').update(representation).digest('base64url').slice(0, 22)}"`;
}

/** A JsonRead of the JSON text `json`. */
export function jsonRead(json: string, deprecation: DeprecationSignals | null = null): JsonRead {
  const body = Buffer.from(json);
  return { body, etag: strongEtag(body), deprecation };
}

/**
 * Whether `If-None-Match` names `etag` (RFC 9110 §13.1.2: `*`, or a list compared weakly, so
 * `W/"x"` matches `"x"`).
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header === etag) return true;
  for (const part of header.split(',')) {
    const tag = part.trim();
    if (tag === '*' || tag === etag || (tag.startsWith('W/') && tag.slice(2) === etag)) return true;
  }
  return false;
}

/** The headers a catalog read is sent with, 200 or 304 alike: ETag, Cache-Control, then its deprecation signals. */
function jsonReadHeaders(read: JsonRead): [string, string][] {
  const headers: [string, string][] = [
    ['etag', read.etag],
    ['cache-control', CATALOG_READ_CACHE_CONTROL],
  ];
  if (read.deprecation) headers.push(...deprecationSignalHeaders(read.deprecation));
  return headers;
}

/** The header lists of a read (a 304's, a 200's), made once per read: a read never changes. Both writers send them. */
const rawHeaderLists = new WeakMap<JsonRead, { notModified: string[]; ok: string[] }>();

function rawHeaderListsOf(read: JsonRead): { notModified: string[]; ok: string[] } {
  let lists = rawHeaderLists.get(read);
  if (lists === undefined) {
    const notModified = jsonReadHeaders(read).flat();
    const ok = [...notModified, 'content-type', JSON_CONTENT_TYPE, 'content-length', String(read.body.length)];
    lists = { notModified, ok };
    rawHeaderLists.set(read, lists);
  }
  return lists;
}

/**
 * Sends a catalog read: ETag, Cache-Control and its deprecation headers, then the body, or a 304
 * without one when the client's copy is current. The Nest controllers and the read fast path both
 * answer through here (the front through writeJsonRead).
 */
export function sendJsonRead(request: FastifyRequest, reply: FastifyReply, read: JsonRead): FastifyReply {
  const { notModified } = rawHeaderListsOf(read);
  for (let index = 0; index < notModified.length; index += 2) reply.header(notModified[index] as string, notModified[index + 1]);
  if (ifNoneMatchMatches(request.headers['if-none-match'], read.etag)) return reply.code(304).send();
  return reply.header('content-type', JSON_CONTENT_TYPE).send(read.body);
}

/** sendJsonRead on the bare HTTP response (the read front, before Fastify); the status it sent. */
export function writeJsonRead(request: IncomingMessage, response: ServerResponse, read: JsonRead): number {
  // Node reads a writeHead header list without keeping or changing it, so one list serves every answer.
  const lists = rawHeaderListsOf(read);
  if (ifNoneMatchMatches(request.headers['if-none-match'], read.etag)) {
    response.writeHead(304, lists.notModified).end();
    return 304;
  }
  response.writeHead(200, lists.ok).end(read.body);
  return 200;
}
