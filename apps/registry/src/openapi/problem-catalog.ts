import type { Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ERROR_CATALOG, ERROR_CODES, type ErrorCode } from '../problem/error-catalog.js';
import { sendProblem } from '../problem/problem-details.filter.js';
import type { ProblemDetails } from '../problem/problem-details.js';
import { apiComponent } from './openapi-components.js';

/** The codes of the one error catalog (problem/error-catalog.ts), each documented with what the mapper renders of its sample. */
export type ProblemCode = ErrorCode;
const PROBLEM_CODES: ProblemCode[] = ERROR_CODES;

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
    const rendered = render(ERROR_CATALOG[code].sample());
    if (rendered.body.code !== code) throw new Error(`OpenAPI problem catalog: the sample for ${code} renders as ${rendered.body.code}`);
    // The mapper's special cases (401, 403, framing errors, readiness) must agree with the catalog too.
    if (rendered.status !== ERROR_CATALOG[code].http)
      throw new Error(
        `OpenAPI problem catalog: ${code} renders with status ${rendered.status}, the catalog says ${ERROR_CATALOG[code].http}`,
      );
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
