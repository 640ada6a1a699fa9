import { Injectable, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleAssets } from './console-assets.js';

/**
 * The console's Content-Security-Policy: its own scripts, styles, fonts and API only, nothing inline, no
 * other origin, no framing. The console is built to need nothing else (no CDN, fonts bundled, no eval:
 * its JSON Schema validator interprets schemas instead of compiling them to code).
 */
const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

/** Answers a request under /console: hashed assets cached for a year, pages revalidated, gzip when asked for. */
@Injectable()
export class ConsoleResponder {
  constructor(private readonly assets: ConsoleAssets) {}

  file(relative: string, request: FastifyRequest, reply: FastifyReply): void {
    const file = this.assets.find(relative);
    if (!file) throw new NotFoundException(`No console file at /console/${relative}`);
    reply.headers(SECURITY_HEADERS);
    reply.header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    reply.header('etag', file.etag);
    reply.header('vary', 'accept-encoding');
    if (request.headers['if-none-match'] === file.etag) {
      reply.code(304).send();
      return;
    }
    reply.type(file.mediaType);
    if (file.gzip && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) {
      reply.header('content-encoding', 'gzip').send(file.gzip);
      return;
    }
    reply.send(file.body);
  }
}
