import { HttpException } from '@nestjs/common';
import { CursorInvalid, JsonRejected } from '#contracts/index.js';
import { Forbidden, Unauthenticated } from '../auth/token-authenticator.js';
import { DomainError, InputInvalid, RequestInvalid, asDomainError } from './domain-errors.js';
import { TITLES, httpStatusOf } from './error-catalog.js';

/** Seconds after which a 503 (a dependency away) may succeed: REST's Retry-After, gRPC's RetryInfo. */
export const RETRY_AFTER_SECONDS = 2;

/** An RFC 9457 problem details body, with the registry's stable `code`. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  errors?: { field: string; message: string }[];
  [extension: string]: unknown;
}

/** Fastify's own request errors (body parsing, limits), by their `code`. */
const FASTIFY_ERRORS: Record<string, { status: number; code: string; detail?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'PAYLOAD_TOO_LARGE', detail: 'Request body is larger than 1 MiB' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', detail: 'Send JSON with Content-Type: application/json' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'MALFORMED_JSON', detail: 'Body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'MALFORMED_JSON', detail: 'Body is empty but Content-Type is application/json' },
  FST_ERR_BAD_URL: { status: 400, code: 'MALFORMED_URL', detail: 'The URL is not validly percent-encoded UTF-8' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'BAD_REQUEST', detail: 'Content-Length does not match the body' },
};

export function problem(status: number, code: string, detail: string, extensions: Record<string, unknown> = {}): ProblemDetails {
  // Extensions never override the standard members.
  return {
    ...extensions,
    type: `https://skill-registry.dev/problems/${code.toLowerCase().replace(/_/g, '-')}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
  };
}

/** Maps any error to problem details; `null` means "unexpected: log it and answer 500". */
export function toProblem(thrown: unknown): ProblemDetails | null {
  const error = asDomainError(thrown);
  if (error instanceof RequestInvalid) return problem(400, error.code, error.message, { errors: error.errors });
  if (error instanceof InputInvalid) return problem(422, error.code, error.message, { errors: error.violations });
  if (error instanceof DomainError) return problem(httpStatusOf(error.code) ?? 400, error.code, error.message, error.details);
  if (error instanceof Unauthenticated) return problem(401, error.code, error.message);
  if (error instanceof Forbidden) return problem(403, error.code, error.message);
  if (error instanceof JsonRejected) {
    if (error.kind === 'malformed') return problem(400, 'MALFORMED_JSON', `Body is refused: ${error.message}`);
    const field = error.pointer ?? 'request';
    return problem(400, 'VALIDATION_FAILED', `Request is invalid: ${error.message}`, { errors: [{ field, message: error.reason }] });
  }
  if (error instanceof CursorInvalid) {
    return problem(400, 'INVALID_CURSOR', `${error.message}; start again without a cursor`, {
      errors: [{ field: 'cursor', message: error.message }],
    });
  }
  const fastifyCode = (error as { code?: string } | null)?.code;
  if (fastifyCode && FASTIFY_ERRORS[fastifyCode]) {
    const known = FASTIFY_ERRORS[fastifyCode];
    return problem(known.status, known.code, known.detail ?? (error as Error).message);
  }
  if (error instanceof SyntaxError) {
    return problem(400, 'MALFORMED_JSON', `Body is not valid JSON: ${(error as Error).message}`);
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const response = error.getResponse();
    const message =
      typeof response === 'object' && response && 'message' in response ? (response as { message: unknown }).message : error.message;
    const detail = Array.isArray(message) ? message.join('; ') : String(message);
    // Nest's Fastify adapter turns Fastify's JSON parse failure into a plain 400 HttpException.
    if (status === 400 && /not valid JSON/i.test(detail)) return problem(400, 'MALFORMED_JSON', detail);
    if (status === 413) return problem(413, 'PAYLOAD_TOO_LARGE', 'Request body is larger than 1 MiB');
    const code = (TITLES[status] ?? 'ERROR').toUpperCase().replace(/ /g, '_');
    // Readiness (terminus) answers 503 with what is down: a dependency outage, not a server fault.
    if (status === 503 && typeof response === 'object' && response && 'details' in response) {
      return problem(503, 'NOT_READY', 'A dependency of the registry is unavailable', {
        checks: (response as { details: unknown }).details,
      });
    }
    if (status >= 500) return null;
    return problem(status, code, detail);
  }
  const statusCode = (error as { statusCode?: number } | null)?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return problem(statusCode, 'BAD_REQUEST', (error as Error).message);
  }
  return null;
}
