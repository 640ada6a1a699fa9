import { ServiceUnavailableException } from '@nestjs/common';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { CursorInvalid, JsonRejected, allowedTransitions } from '#contracts/index.js';
import { ArchiveRejected, PackageTooLarge } from '#package-store/index.js';
import { TwinFailure } from '#twin/index.js';
import { Forbidden, Unauthenticated } from '../auth/token-authenticator.js';
import {
  AgentNotFound,
  ConcurrentModification,
  DatabaseUnavailable,
  DependentsExist,
  ExecutionFinished,
  ExecutionNotFound,
  HookDenied,
  HookFailed,
  HostNotAllowed,
  IdempotencyKeyReused,
  InputInvalid,
  InvalidTransition,
  NotAPackage,
  OriginNotAllowed,
  PackageFileNotFound,
  PackageInvalid,
  PackageNotFound,
  PackageNotStored,
  PathOutsideSkillPaths,
  PromotionEvidenceMissing,
  QueueUnavailable,
  RateLimited,
  TooManyStreams,
  TooManyStreamsForCaller,
  RequestInvalid,
  SchemaInvalid,
  SkillNotExecutable,
  SkillNotFound,
  ScriptToolNotFound,
  VersionImmutable,
} from './domain-errors.js';

const fastifyError = (code: string, message: string) => Object.assign(new Error(message), { code });

/** What one stable error code means on each transport. */
export interface ErrorCatalogEntry {
  /** The REST answer's status (problem details). */
  http: number;
  /** The gRPC status; null for codes only REST answers with (HTTP framing, the readiness probe). */
  grpc: GrpcStatus | null;
  /**
   * A real error that the REST mapper turns into this code: the OpenAPI document's example is what the
   * mapper makes of it (openapi/problem-catalog.ts checks that it renders as this code).
   */
  sample: () => unknown;
}

/**
 * Every stable error code the registry answers with, in one place: its HTTP status, its gRPC status and a
 * sample for the OpenAPI document. The REST mapper (problem-details.ts), the gRPC mapper (grpc/grpc-errors.ts)
 * and the OpenAPI problem catalog read it; a code added here is documented and mapped on both transports.
 * Titles follow the HTTP status (TITLES).
 */
export const ERROR_CATALOG = {
  SKILL_NOT_FOUND: {
    http: 404,
    grpc: GrpcStatus.NOT_FOUND,
    sample: () => new SkillNotFound('compare_results', '9.9.9', ['0.1.0 (ACTIVE)']),
  },
  AGENT_NOT_FOUND: {
    http: 404,
    grpc: GrpcStatus.NOT_FOUND,
    sample: () => new AgentNotFound('thermal', ['electronics', 'firmware', 'mechanical', 'simulation']),
  },
  PACKAGE_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND, sample: () => new PackageNotFound('simulation/nothing_here') },
  INVALID_TRANSITION: {
    http: 409,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    sample: () => new InvalidTransition('compare_results', '0.1.0', 'DEPRECATED', 'ACTIVE', allowedTransitions('DEPRECATED')),
  },
  PROMOTION_EVIDENCE_FAILED: {
    http: 409,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    sample: () =>
      new PromotionEvidenceMissing('compare_results', '0.1.0', ['example 1: the output differs from the declared one'], { examples: [] }),
  },
  VERSION_IMMUTABLE: {
    http: 409,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    sample: () => new VersionImmutable('compare_results', '0.1.0', 'ACTIVE', 'sha256:3f1c…'),
  },
  DEPENDENTS_EXIST: {
    http: 409,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    sample: () => new DependentsExist('compare_results', ['run_thermal 0.2.0 (^0.1.0)']),
  },
  SCHEMA_INVALID: {
    http: 422,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    sample: () => new SchemaInvalid('new', ['/type: must be equal to one of the allowed values']),
  },
  TOOL_NOT_FOUND: {
    http: 404,
    grpc: GrpcStatus.NOT_FOUND,
    sample: () => new ScriptToolNotFound('pdf-notes', '1.0.0', 'summarise', ['extract_text']),
  },
  PACKAGE_FILE_NOT_FOUND: {
    http: 404,
    grpc: GrpcStatus.NOT_FOUND,
    sample: () => new PackageFileNotFound('compare_results', '0.1.0', 'docs/missing.md'),
  },
  // gRPC: lost an optimistic-lock race five times; the client may retry the whole call.
  CONCURRENT_MODIFICATION: { http: 409, grpc: GrpcStatus.ABORTED, sample: () => new ConcurrentModification('compare_results', '0.1.0') },
  PATH_OUTSIDE_SKILL_PATHS: {
    http: 400,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    sample: () => new PathOutsideSkillPaths('/etc', ['/srv/skills']),
  },
  NOT_A_PACKAGE: { http: 422, grpc: GrpcStatus.INVALID_ARGUMENT, sample: () => new NotAPackage('simulation') },
  PACKAGE_INVALID: {
    http: 422,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    sample: () =>
      new PackageInvalid('acme_filter', '1.0.0', [
        {
          severity: 'error',
          category: 'definition',
          file: 'definition.json',
          path: '/timeout_seconds',
          message: 'timeout_seconds must be a positive number',
          hint: 'Set timeout_seconds to the longest a run may take',
        },
      ]),
  },
  PACKAGE_NOT_STORED: { http: 404, grpc: GrpcStatus.NOT_FOUND, sample: () => new PackageNotStored('compare_results', '0.1.0') },
  PACKAGE_TOO_LARGE: {
    http: 413,
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    sample: () => new PackageTooLarge('PACKAGE_MAX_BYTES', 31_457_280, 20_971_520),
  },
  ARCHIVE_REJECTED: {
    http: 400,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    sample: () => new ArchiveRejected('path leaves the package', '../outside.txt'),
  },
  VALIDATION_FAILED: {
    http: 400,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    sample: () =>
      new RequestInvalid('Query is invalid: limit: Too big: expected number to be <=100', [
        { field: 'limit', message: 'Too big: expected number to be <=100' },
      ]),
  },
  SKILL_NOT_EXECUTABLE: {
    http: 409,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    sample: () => new SkillNotExecutable('compare_results', '0.2.0', 'REGISTERED'),
  },
  INPUT_INVALID: {
    http: 422,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    sample: () => new InputInvalid('compare_results', '0.1.0', [{ pointer: '', message: "must have required property 'signals'" }]),
  },
  // gRPC: the key names an execution that exists already, made from another request.
  IDEMPOTENCY_KEY_REUSED: {
    http: 409,
    grpc: GrpcStatus.ALREADY_EXISTS,
    sample: () => new IdempotencyKeyReused('order-42', '0b9e3c52-5a43-4a8e-9d0c-1f3b7c2a9e11'),
  },
  QUEUE_UNAVAILABLE: { http: 503, grpc: GrpcStatus.UNAVAILABLE, sample: () => new QueueUnavailable('connect ECONNREFUSED 127.0.0.1:6379') },
  HOOK_DENIED: {
    http: 403,
    grpc: GrpcStatus.PERMISSION_DENIED,
    sample: () => new HookDenied('beta_closed', 'beta skills are closed this week', 'deny'),
  },
  RATE_LIMITED: {
    http: 429,
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    sample: () => new RateLimited('ten_a_minute', "bot may run 'compare_results' 10 time(s) per 60 s; try again in 42 s", 42),
  },
  HOOK_FAILED: {
    http: 503,
    grpc: GrpcStatus.UNAVAILABLE,
    sample: () =>
      new HookFailed(
        'audit',
        "Hook 'audit' (pre_flight) failed and is fail-closed: http://audit.internal/hook could not be reached: ECONNREFUSED",
      ),
  },
  DATABASE_UNAVAILABLE: { http: 503, grpc: GrpcStatus.UNAVAILABLE, sample: () => new DatabaseUnavailable() },
  TOO_MANY_STREAMS: { http: 503, grpc: GrpcStatus.UNAVAILABLE, sample: () => new TooManyStreams(1000) },
  TOO_MANY_STREAMS_FOR_CALLER: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED, sample: () => new TooManyStreamsForCaller(100) },
  HOST_NOT_ALLOWED: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED, sample: () => new HostNotAllowed('rebind.attacker.example') },
  ORIGIN_NOT_ALLOWED: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED, sample: () => new OriginNotAllowed('https://attacker.example') },
  EXECUTION_NOT_FOUND: {
    http: 404,
    grpc: GrpcStatus.NOT_FOUND,
    sample: () => new ExecutionNotFound('0b9e3c52-5a43-4a8e-9d0c-1f3b7c2a9e11'),
  },
  EXECUTION_FINISHED: {
    http: 409,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    sample: () => new ExecutionFinished('0b9e3c52-5a43-4a8e-9d0c-1f3b7c2a9e11', 'SUCCEEDED'),
  },
  TWIN_BRANCH_NOT_FOUND: {
    http: 404,
    grpc: GrpcStatus.NOT_FOUND,
    sample: () => new TwinFailure('BRANCH_NOT_FOUND', "No twin branch 'design-b'", { branch: 'design-b' }),
  },
  TWIN_BRANCH_EXISTS: {
    http: 409,
    grpc: GrpcStatus.ALREADY_EXISTS,
    sample: () => new TwinFailure('BRANCH_EXISTS', "Twin branch 'design-b' exists", { branch: 'design-b' }),
  },
  WORK_PRODUCT_NOT_FOUND: {
    http: 404,
    grpc: GrpcStatus.NOT_FOUND,
    sample: () => new TwinFailure('WORK_PRODUCT_NOT_FOUND', "No work product 'wp-1' on branch 'main'", { id: 'wp-1' }),
  },
  REVISION_NOT_FOUND: {
    http: 404,
    grpc: GrpcStatus.NOT_FOUND,
    sample: () => new TwinFailure('REVISION_NOT_FOUND', "Work product 'wp-1' has no revision 9 on branch 'main'", {}),
  },
  KIND_MISMATCH: {
    http: 409,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    sample: () => new TwinFailure('KIND_MISMATCH', "Work product 'wp-1' is a mesh, not a cad_model", {}),
  },
  TWIN_TOO_LARGE: {
    http: 413,
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    sample: () => new TwinFailure('TOO_LARGE', 'Content is larger than TWIN_MAX_REVISION_BYTES (33554432)', {}),
  },
  UNSUPPORTED_MEDIA_TYPE: {
    http: 415,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    sample: () => new TwinFailure('MEDIA_TYPE_UNSUPPORTED', 'Send the content with its media type as Content-Type', {}),
  },
  UNAUTHENTICATED: {
    http: 401,
    grpc: GrpcStatus.UNAUTHENTICATED,
    sample: () => new Unauthenticated('This call needs a bearer token (AGENT_TOKENS is set)'),
  },
  FORBIDDEN: {
    http: 403,
    grpc: GrpcStatus.PERMISSION_DENIED,
    sample: () => new Forbidden('bot is an agent token; this call needs an admin token'),
  },
  // REST only from here to NOT_READY: HTTP framing and the readiness probe (gRPC has its own framing errors).
  MALFORMED_JSON: { http: 400, grpc: null, sample: () => new JsonRejected('Unexpected end of JSON input') },
  INVALID_CURSOR: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT, sample: () => new CursorInvalid('not a cursor of this API') },
  PAYLOAD_TOO_LARGE: { http: 413, grpc: null, sample: () => fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 'Request body is too large') },
  MALFORMED_URL: { http: 400, grpc: null, sample: () => fastifyError('FST_ERR_BAD_URL', "'/v1/skills/%FF' is not a valid url component") },
  NOT_READY: {
    http: 503,
    grpc: null,
    sample: () =>
      new ServiceUnavailableException({
        status: 'error',
        info: {},
        error: { database: { status: 'down', message: 'Connection terminated' } },
        details: { database: { status: 'down', message: 'Connection terminated' } },
      }),
  },
  INTERNAL: { http: 500, grpc: GrpcStatus.INTERNAL, sample: () => new Error('an unexpected failure') },
} satisfies Record<string, ErrorCatalogEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOG;
export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

const entryOf = (code: string): ErrorCatalogEntry | undefined =>
  Object.hasOwn(ERROR_CATALOG, code) ? (ERROR_CATALOG as Record<string, ErrorCatalogEntry>)[code] : undefined;

/** The HTTP status of a code; undefined for a code outside the catalog. */
export function httpStatusOf(code: string): number | undefined {
  return entryOf(code)?.http;
}

/** The gRPC status of a code; undefined for a code outside the catalog or one only REST answers with. */
export function grpcStatusOf(code: string): GrpcStatus | undefined {
  return entryOf(code)?.grpc ?? undefined;
}

/** The title of a problem details body, by HTTP status (RFC 9457: a short summary of the problem type). */
export const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};
