import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import { CursorInvalid, clip, printable } from '#contracts/index.js';
import { Forbidden, Unauthenticated } from '../auth/token-authenticator.js';
import {
  DomainError,
  InputInvalid,
  PackageInvalid,
  PathOutsideSkillPaths,
  PromotionEvidenceMissing,
  RequestInvalid,
  asDomainError,
} from '../problem/domain-errors.js';
import { grpcStatusOf } from '../problem/error-catalog.js';
import { encodeStatusDetails, type FieldViolation, type PreconditionViolation } from './status-details.js';
import { RETRY_AFTER_SECONDS } from '../problem/problem-details.js';

const ERROR_DOMAIN = 'skill-registry.dev';

/** What grpc-js sends for a failed call: status code, message (`details`) and trailing metadata. */
export interface GrpcError {
  code: GrpcStatus;
  details: string;
  message: string;
  metadata: Metadata;
}

/**
 * Maps an error to the gRPC status the client receives; `null` means "unexpected: log it and answer
 * INTERNAL". The stable code travels in the `error-code` trailer and, with the field or precondition
 * violations, in `grpc-status-details-bin`.
 */
export function toGrpcError(thrown: unknown): GrpcError | null {
  const error = asDomainError(thrown);
  if (error instanceof CursorInvalid) {
    return grpcError('INVALID_CURSOR', `${error.message}; start again without a cursor`, {}, [
      { field: 'cursor', description: error.message },
    ]);
  }
  if (error instanceof Unauthenticated || error instanceof Forbidden) return grpcError(error.code, error.message);
  if (!(error instanceof DomainError)) return null;
  if (error instanceof RequestInvalid) {
    return grpcError(
      error.code,
      error.message,
      {},
      error.errors.map((entry) => ({ field: entry.field, description: entry.message })),
    );
  }
  if (error instanceof InputInvalid) {
    const violations = error.violations.map((entry) => ({ field: entry.pointer, description: entry.message }));
    const listed = violations.map((v) => `${v.field || '/'}: ${v.description}`).join('; ');
    return grpcError(error.code, `${error.message}: ${listed}`, error.details, violations);
  }
  if (error instanceof PackageInvalid) {
    const report = (error.details.report as { severity: string; file?: string; path?: string; message: string }[] | undefined) ?? [];
    const violations = report
      .filter((issue) => issue.severity === 'error')
      .map((issue) => ({ field: [issue.file, issue.path].filter(Boolean).join(' ') || 'package', description: issue.message }));
    return grpcError(error.code, error.message, error.details, violations);
  }
  if (error instanceof PathOutsideSkillPaths) {
    return grpcError(error.code, error.message, error.details, [{ field: 'path', description: error.message }]);
  }
  return grpcError(error.code, error.message, error.details, [], preconditionViolations(error));
}

/** The unexpected error's answer: nothing of it leaks to the client. */
export function internalError(): GrpcError {
  return grpcError('INTERNAL', 'The server failed to handle this request; it has been logged');
}

function preconditionViolations(error: DomainError): PreconditionViolation[] {
  if (grpcStatusOf(error.code) !== GrpcStatus.FAILED_PRECONDITION) return [];
  const { name, version, id } = error.details as { name?: string; version?: string; id?: string };
  const subject = name ? (version ? `${name}@${version}` : name) : (id ?? '');
  if (error instanceof PromotionEvidenceMissing) {
    const failures = (error.details.failures as string[] | undefined) ?? [];
    return failures.map((failure) => ({ type: error.code, subject, description: failure }));
  }
  return [{ type: error.code, subject, description: error.message }];
}

/**
 * Longest message and detail value sent. Everything here travels in HTTP/2 trailers, which a peer
 * refuses past its header-list limit (16 KiB by default): a request value echoed at length would
 * make the whole call fail, so no value is repeated beyond this.
 */
const MAX_MESSAGE = 1024;
const MAX_DETAIL = 256;
const MAX_VIOLATIONS = 20;

function grpcError(
  code: string,
  fullMessage: string,
  details: Record<string, unknown> = {},
  allFieldViolations: FieldViolation[] = [],
  allPreconditionViolations: PreconditionViolation[] = [],
): GrpcError {
  const message = printable(clip(fullMessage, MAX_MESSAGE));
  const fieldViolations = allFieldViolations
    .slice(0, MAX_VIOLATIONS)
    .map((v) => ({ field: clip(v.field, MAX_DETAIL), description: clip(v.description, MAX_DETAIL) }));
  const preconditionViolations = allPreconditionViolations
    .slice(0, MAX_VIOLATIONS)
    .map((v) => ({ type: v.type, subject: clip(v.subject, MAX_DETAIL), description: clip(v.description, MAX_DETAIL) }));
  const status = grpcStatusOf(code) ?? GrpcStatus.FAILED_PRECONDITION;
  const metadata = new Metadata();
  metadata.set('error-code', code);
  if (status === GrpcStatus.UNAUTHENTICATED) metadata.set('www-authenticate', 'Bearer realm="skill-registry"');
  metadata.set(
    'grpc-status-details-bin',
    encodeStatusDetails({
      code: status,
      message,
      errorInfo: { reason: code, domain: ERROR_DOMAIN, metadata: scalarDetails(details) },
      fieldViolations,
      preconditionViolations,
      ...(status === GrpcStatus.UNAVAILABLE ? { retryDelaySeconds: RETRY_AFTER_SECONDS } : {}),
    }),
  );
  return { code: status, details: message, message, metadata };
}

/** ErrorInfo metadata is string to string: the scalar facts of the error (name, version, status, ...). */
function scalarDetails(details: Record<string, unknown>): Record<string, string> {
  const scalars: Record<string, string> = {};
  for (const [key, value] of Object.entries(details)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      scalars[key] = clip(String(value), MAX_DETAIL);
  }
  return scalars;
}
