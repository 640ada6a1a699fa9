import type { CallToolResult } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { CursorInvalid } from '#contracts/index.js';
import { isTerminal, type ExecutionRecord } from '#executions/index.js';
import type { ExposedSkill } from '../tool-definitions/exposed-skills.js';
import { DomainError, InputInvalid, asDomainError } from '../problem/domain-errors.js';
import { hasObjectOutput } from '../tool-definitions/tool-definition-formats.js';

/**
 * The MCP transport's mapping of outcomes to `tools/call` results — what problem-details.filter.ts
 * is for REST. Failures the agent can act on (the skill failed, the arguments were wrong, the
 * skill is not executable, the queue is down) are tool results with `isError: true` and text
 * `CODE: message`, so the model sees them; protocol misuse (an unknown tool) is a JSON-RPC error
 * raised by the caller.
 */

/** `_meta` key of a skill call's execution facts (id, version, attempts, ...). */
const EXECUTION_META_KEY = 'skill-registry/execution';

export function structuredResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

function errorResult(code: string, message: string, details: Record<string, unknown> = {}, lines: string[] = []): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: [`${code}: ${message}`, ...lines].join('\n') }],
    _meta: { [EXECUTION_META_KEY]: { error: { code, message, details } } },
  };
}

/** A typed domain error as a tool error; anything else is unexpected (`null`: rethrow it). */
export function domainErrorResult(thrown: unknown): CallToolResult | null {
  const error = asDomainError(thrown);
  if (error instanceof InputInvalid) {
    return errorResult(
      error.code,
      error.message,
      error.details,
      error.violations.map((violation) => `${violation.pointer}: ${violation.message}`),
    );
  }
  if (error instanceof DomainError) return errorResult(error.code, error.message, error.details);
  // A cursor this server never issued (search_skills' `cursor`): the caller's mistake, as REST's 400 INVALID_CURSOR.
  if (error instanceof CursorInvalid) return errorResult('INVALID_CURSOR', error.message);
  return null;
}

/** Arguments of a discovery tool that do not match its input schema. */
export function invalidArguments(tool: string, error: z.ZodError): CallToolResult {
  const violations = error.issues.map((issue) => ({
    pointer: `/${issue.path.map(String).join('/')}`,
    message: issue.code === 'unrecognized_keys' ? `unknown properties ${issue.keys.map((key) => `'${key}'`).join(', ')}` : issue.message,
  }));
  return errorResult(
    'INPUT_INVALID',
    `Arguments do not match the input schema of '${tool}'`,
    { errors: violations },
    violations.map((v) => `${v.pointer}: ${v.message}`),
  );
}

/**
 * A skill call's result from its execution: the output as `structuredContent` (it was validated
 * against the output schema by the executor) and as JSON text; failures as `CODE: message`.
 */
export function executionResult(
  execution: ExecutionRecord,
  version: Pick<ExposedSkill, 'nextTools' | 'outputSchema'>,
  waitedSeconds: number,
): CallToolResult {
  const next = version.nextTools ? (execution.status === 'SUCCEEDED' ? version.nextTools.on_success : version.nextTools.on_failure) : [];
  const facts = {
    id: execution.id,
    skill: execution.skillName,
    ...(execution.tool ? { tool: execution.tool } : {}),
    version: execution.version,
    // Seed 004's next-tools: what to call after this result (success or failure).
    ...(next.length ? { next_tools: next } : {}),
    status: execution.status,
    attempts: execution.attempts,
    duration_ms: execution.durationMs,
    warnings: execution.warnings,
  };
  const warnings = execution.warnings.map((warning) => ({ type: 'text' as const, text: `Warning: ${warning}` }));
  if (execution.status === 'SUCCEEDED' && execution.output) {
    const output = execution.output;
    return {
      content: [{ type: 'text', text: JSON.stringify(output) }, ...warnings],
      ...(hasObjectOutput(version) ? { structuredContent: output } : {}),
      _meta: { [EXECUTION_META_KEY]: facts },
    };
  }
  if (!isTerminal(execution.status)) {
    return {
      isError: true,
      content: [
        {
          type: 'text',
          text:
            `EXECUTION_PENDING: execution ${execution.id} is still ${execution.status} after ${waitedSeconds} s; ` +
            `follow it at GET /v1/executions/${execution.id}`,
        },
        ...warnings,
      ],
      _meta: { [EXECUTION_META_KEY]: facts },
    };
  }
  const error = execution.error ?? { code: execution.status, message: `execution ${execution.status.toLowerCase()}`, details: {} };
  return {
    isError: true,
    content: [{ type: 'text', text: `${error.code}: ${error.message}` }, ...warnings],
    _meta: { [EXECUTION_META_KEY]: { ...facts, error } },
  };
}
