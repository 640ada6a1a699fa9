import type { FastifyReply } from 'fastify';

/**
 * Headers of every response that carries bytes someone else wrote (a package's files and archive: its publisher's; a
 * twin work product's content: a handler's or an agent's, in the media type they chose), which the registry serves
 * from the origin of its console and API. `sandbox` puts a page that a browser renders (HTML, SVG,
 * XML) in an opaque origin with scripts, forms, popups and plugins off; nothing of it loads anything; `nosniff` keeps a
 * browser from taking a file for another type than it was served as.
 */
const UNTRUSTED_CONTENT_HEADERS: Record<string, string> = {
  'content-security-policy': "sandbox; default-src 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
};

/** Media types a browser opens as a document that could run script: such files are served as downloads. */
const DOCUMENT_TYPES = /^(text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml|application\/[\w.+-]*\+xml)$/;

/** Sets the headers above, and `Content-Disposition: attachment` when `mediaType` would open as an active document. */
export function serveUntrustedBytes(reply: FastifyReply, mediaType: string, fileName: string): FastifyReply {
  void reply.headers(UNTRUSTED_CONTENT_HEADERS);
  const bare = mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (DOCUMENT_TYPES.test(bare)) void reply.header('content-disposition', contentDisposition(fileName));
  return reply;
}

/** `attachment` with the file's base name, quoted safely (RFC 6266; non-ASCII in `filename*`). */
export function contentDisposition(fileName: string): string {
  const base = fileName.slice(fileName.lastIndexOf('/') + 1);
  const ascii = base.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(base)}`;
}
