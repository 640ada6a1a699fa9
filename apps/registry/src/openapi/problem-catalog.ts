import { Logger, ServiceUnavailableException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CursorInvalid, JsonRejected, allowedTransitions } from '#contracts/index.js';
import { ArchiveRejected, PackageTooLarge } from '#package-store/index.js';
import { TwinFailure } from '#twin/index.js';
import { Forbidden, Unauthenticated } from '../auth/token-authenticator.js';
import {
  ConcurrentModification,
  DatabaseUnavailable,
  DependentsExist,
  ExecutionFinished,
  ExecutionNotFound,
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
  RequestInvalid,
  SchemaInvalid,
  SkillNotExecutable,
  SkillNotFound,
  ToolNotFound,
  VersionImmutable,
} from '../problem/domain-errors.js';
import { sendProblem } from '../problem/problem-details.filter.js';
import type { ProblemDetails } from '../problem/problem-details.js';
import { apiComponent } from './openapi-components.js';

const fastifyError = (code: string, message: string) => Object.assign(new Error(message), { code });

/**
 * One real error per problem `code` the REST API answers with. The document's codes, statuses, headers
 * and examples are what the one error mapper (problem-details.filter.ts) makes of these, so they cannot
 * drift from it; the key must equal the code it produces (checked below), and the contract test checks
 * that every code of STATUS_BY_CODE has an entry.
 */
const SAMPLE_ERRORS = {
  SKILL_NOT_FOUND: () => new SkillNotFound('compare_results', '9.9.9', ['0.1.0 (ACTIVE)']),
  PACKAGE_NOT_FOUND: () => new PackageNotFound('simulation/nothing_here'),
  INVALID_TRANSITION: () => new InvalidTransition('compare_results', '0.1.0', 'DEPRECATED', 'ACTIVE', allowedTransitions('DEPRECATED')),
  PROMOTION_EVIDENCE_FAILED: () =>
    new PromotionEvidenceMissing('compare_results', '0.1.0', ['example 1: the output differs from the declared one'], { examples: [] }),
  VERSION_IMMUTABLE: () => new VersionImmutable('compare_results', '0.1.0', 'ACTIVE', 'sha256:3f1c…'),
  DEPENDENTS_EXIST: () => new DependentsExist('compare_results', ['run_thermal 0.2.0 (^0.1.0)']),
  SCHEMA_INVALID: () => new SchemaInvalid('new', ['/type: must be equal to one of the allowed values']),
  TOOL_NOT_FOUND: () => new ToolNotFound('pdf-notes', '1.0.0', 'summarise', ['extract_text']),
  PACKAGE_FILE_NOT_FOUND: () => new PackageFileNotFound('compare_results', '0.1.0', 'docs/missing.md'),
  CONCURRENT_MODIFICATION: () => new ConcurrentModification('compare_results', '0.1.0'),
  PATH_OUTSIDE_SKILL_PATHS: () => new PathOutsideSkillPaths('/etc', ['/srv/skills']),
  NOT_A_PACKAGE: () => new NotAPackage('simulation'),
  PACKAGE_INVALID: () =>
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
  PACKAGE_NOT_STORED: () => new PackageNotStored('compare_results', '0.1.0'),
  PACKAGE_TOO_LARGE: () => new PackageTooLarge('PACKAGE_MAX_BYTES', 31_457_280, 20_971_520),
  ARCHIVE_REJECTED: () => new ArchiveRejected('path leaves the package', '../outside.txt'),
  VALIDATION_FAILED: () =>
    new RequestInvalid('Query is invalid: limit: Too big: expected number to be <=100', [
      { field: 'limit', message: 'Too big: expected number to be <=100' },
    ]),
  SKILL_NOT_EXECUTABLE: () => new SkillNotExecutable('compare_results', '0.2.0', 'REGISTERED'),
  INPUT_INVALID: () => new InputInvalid('compare_results', '0.1.0', [{ pointer: '', message: "must have required property 'signals'" }]),
  IDEMPOTENCY_KEY_REUSED: () => new IdempotencyKeyReused('order-42', '0b9e3c52-5a43-4a8e-9d0c-1f3b7c2a9e11'),
  QUEUE_UNAVAILABLE: () => new QueueUnavailable('connect ECONNREFUSED 127.0.0.1:6379'),
  DATABASE_UNAVAILABLE: () => new DatabaseUnavailable(),
  HOST_NOT_ALLOWED: () => new HostNotAllowed('rebind.attacker.example'),
  ORIGIN_NOT_ALLOWED: () => new OriginNotAllowed('https://attacker.example'),
  EXECUTION_NOT_FOUND: () => new ExecutionNotFound('0b9e3c52-5a43-4a8e-9d0c-1f3b7c2a9e11'),
  EXECUTION_FINISHED: () => new ExecutionFinished('0b9e3c52-5a43-4a8e-9d0c-1f3b7c2a9e11', 'SUCCEEDED'),
  TWIN_BRANCH_NOT_FOUND: () => new TwinFailure('BRANCH_NOT_FOUND', "No twin branch 'design-b'", { branch: 'design-b' }),
  TWIN_BRANCH_EXISTS: () => new TwinFailure('BRANCH_EXISTS', "Twin branch 'design-b' exists", { branch: 'design-b' }),
  WORK_PRODUCT_NOT_FOUND: () => new TwinFailure('WORK_PRODUCT_NOT_FOUND', "No work product 'wp-1' on branch 'main'", { id: 'wp-1' }),
  REVISION_NOT_FOUND: () => new TwinFailure('REVISION_NOT_FOUND', "Work product 'wp-1' has no revision 9 on branch 'main'", {}),
  KIND_MISMATCH: () => new TwinFailure('KIND_MISMATCH', "Work product 'wp-1' is a mesh, not a cad_model", {}),
  TWIN_TOO_LARGE: () => new TwinFailure('TOO_LARGE', 'Content is larger than TWIN_MAX_REVISION_BYTES (33554432)', {}),
  UNSUPPORTED_MEDIA_TYPE: () => new TwinFailure('MEDIA_TYPE_UNSUPPORTED', 'Send the content with its media type as Content-Type', {}),
  UNAUTHENTICATED: () => new Unauthenticated('This call needs a bearer token (AGENT_TOKENS is set)'),
  FORBIDDEN: () => new Forbidden('bot is an agent token; this call needs an admin token'),
  MALFORMED_JSON: () => new JsonRejected('Unexpected end of JSON input'),
  INVALID_CURSOR: () => new CursorInvalid('not a cursor of this API'),
  PAYLOAD_TOO_LARGE: () => fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 'Request body is too large'),
  MALFORMED_URL: () => fastifyError('FST_ERR_BAD_URL', "'/v1/skills/%FF' is not a valid url component"),
  NOT_READY: () =>
    new ServiceUnavailableException({
      status: 'error',
      info: {},
      error: { database: { status: 'down', message: 'Connection terminated' } },
      details: { database: { status: 'down', message: 'Connection terminated' } },
    }),
  INTERNAL: () => new Error('an unexpected failure'),
} satisfies Record<string, () => unknown>;

export type ProblemCode = keyof typeof SAMPLE_ERRORS;
export const PROBLEM_CODES = Object.keys(SAMPLE_ERRORS) as ProblemCode[];

/** What the REST error mapper answers for one code: status, headers and body (with a sample detail). */
export interface RenderedProblem {
  status: number;
  headers: Record<string, string>;
  body: ProblemDetails;
}

const silent = { error: () => undefined } as unknown as Logger;

function render(error: unknown): RenderedProblem {
  const rendered: RenderedProblem = { status: 0, headers: {}, body: {} as ProblemDetails };
  const reply = {
    status(code: number) {
      rendered.status = code;
      return reply;
    },
    header(name: string, value: string) {
      if (name.toLowerCase() !== 'content-type') rendered.headers[name] = value;
      return reply;
    },
    send(body: ProblemDetails) {
      rendered.body = body;
      return reply;
    },
  };
  sendProblem(reply as unknown as FastifyReply, { url: '/v1/skills/compare_results' } as FastifyRequest, error, silent);
  return rendered;
}

/** Every code as the mapper renders it. */
export const PROBLEMS: Record<ProblemCode, RenderedProblem> = Object.fromEntries(
  PROBLEM_CODES.map((code) => {
    const rendered = render(SAMPLE_ERRORS[code]());
    if (rendered.body.code !== code) throw new Error(`OpenAPI problem catalog: the sample for ${code} renders as ${rendered.body.code}`);
    return [code, rendered];
  }),
) as Record<ProblemCode, RenderedProblem>;

export const problemDetailsView = apiComponent(
  'ProblemDetails',
  z.looseObject({
    type: z.string().describe('`https://skill-registry.dev/problems/<code in kebab-case>`'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().describe('What went wrong, for a person to act on'),
    code: z.enum(PROBLEM_CODES).describe('Stable machine-readable code'),
    instance: z.string().describe('The request path'),
    errors: z
      .array(z.looseObject({ message: z.string(), field: z.string().optional(), pointer: z.string().optional() }))
      .optional()
      .describe('VALIDATION_FAILED: every bad field; INPUT_INVALID: every schema error with its JSON pointer'),
  }),
  'An RFC 9457 problem details body with the stable `code`; other members are facts about the problem (`current_status`, `allowed_transitions`, ...)',
);
