import { z } from 'zod';
import { EXECUTION_STATUSES } from '#executions/index.js';
import { apiComponent } from '../openapi/openapi-components.js';
import { isoDateTime, jsonObject, nextCursor } from '../openapi/wire-types.js';
import { skillStatus } from '../skills/skill.views.js';
import { dependentView } from '../dependencies/dependents.views.js';

/** The wire views of executions (execution.presenter.ts and the event stream send exactly these). */

const executionErrorCode = z.enum([
  'INPUT_INVALID',
  'OUTPUT_INVALID',
  'PRECONDITION_FAILED',
  'TOOL_ERROR',
  'TOOL_TIMEOUT',
  'HANDLER_TIMEOUT',
  'HANDLER_ERROR',
  'WORKER_LOST',
  'SANDBOX_CRASHED',
  'RESOURCE_EXHAUSTED',
  'CANCELLED',
  'QUEUE_UNAVAILABLE',
  'HOOK_DENIED',
  'HOOK_FAILED',
]);

const executionErrorView = apiComponent(
  'ExecutionError',
  z.object({ code: executionErrorCode, message: z.string(), details: jsonObject }),
  'Why an execution failed: a stable code, a message a person can act on, and details',
);

export const executionView = apiComponent(
  'Execution',
  z.object({
    id: z.uuid(),
    skill: z.string(),
    version: z.string(),
    tool: z.string().nullable().describe('The tool it runs (Agent Skills versions); null for a TypeScript handler'),
    branch: z.string().describe('The digital twin branch it works on'),
    trace_id: z.string().nullable().describe('W3C trace id of the request that asked for it'),
    status: z.enum(EXECUTION_STATUSES),
    input: jsonObject,
    output: jsonObject.nullable(),
    error: executionErrorView.nullable(),
    attempts: z.number().int(),
    max_attempts: z.number().int(),
    warnings: z.array(z.string()).describe("Deprecation notices about the skill's version"),
    session_id: z.string().nullable(),
    caller: z.string().describe('Identity of the token that asked for it'),
    purpose: z.enum(['call', 'promotion']),
    cancel_requested_at: isoDateTime.nullable(),
    created_at: isoDateTime,
    started_at: isoDateTime.nullable(),
    finished_at: isoDateTime.nullable(),
    duration_ms: z.number().nullable(),
  }),
  'One execution of a skill version',
);

export const executionListView = apiComponent('ExecutionList', z.object({ items: z.array(executionView), next_cursor: nextCursor }));

const usageWindow = z.object({ executions: z.number().int(), callers: z.number().int(), sessions: z.number().int() });

export const skillUsageView = apiComponent(
  'SkillUsage',
  z.object({
    skill: z.string(),
    versions: z.array(
      z.object({
        version: z.string(),
        status: skillStatus,
        windows: z.object({ '7d': usageWindow, '30d': usageWindow, '90d': usageWindow }),
        last_called_at: isoDateTime.nullable(),
      }),
    ),
    dependents: z.array(dependentView),
  }),
  'Per version: executions, distinct callers and sessions in the last 7/30/90 days, and the last call; who depends on it',
);

const at = isoDateTime;
const toolCallError = z.object({ code: z.string(), message: z.string() });
const hookMetadata = jsonObject.optional().describe('What hooks added (annotate, code hooks) before this event');

/** The `data` of each Server-Sent Event of GET /v1/executions/{id}/events (its `event` is the `type`). */
export const executionEventView = apiComponent(
  'ExecutionEvent',
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('queued'), at, skill: z.string(), version: z.string(), metadata: hookMetadata }),
    z.object({ type: z.literal('started'), at, attempt: z.number().int() }),
    z.object({ type: z.literal('attempt_failed'), at, attempt: z.number().int(), error: executionErrorView, next_delay_ms: z.number() }),
    z.object({ type: z.literal('tool_invoked'), at, tool_id: z.string() }),
    z.object({
      type: z.literal('tool_completed'),
      at,
      tool_id: z.string(),
      duration_ms: z.number(),
      ok: z.boolean(),
      disabled: z
        .literal(true)
        .optional()
        .describe('The tool is switched off (TOOLS_DISABLED): the handler got { disabled: true, reason } and decided'),
      error: toolCallError.optional(),
    }),
    z
      .object({
        type: z.literal('output_invalid'),
        at,
        attempt: z.number().int(),
        try: z.number().int().describe('The try within the attempt (1, 2, …)'),
        errors: z.array(jsonObject).describe('What was wrong with its result'),
        reask: z.boolean().describe('Whether the gate asks the handler again (max_retries_per_gate, idempotent skills only)'),
      })
      .describe('A result failed output validation (only for skills with max_retries_per_gate > 0)'),
    z
      .object({ type: z.literal('step_started'), at, step: z.string(), tool: z.string(), index: z.number().int() })
      .describe("A workflow's step is about to run its tool (seed 004 workflows: one execution, one event stream)"),
    z
      .object({
        type: z.literal('step_completed'),
        at,
        step: z.string(),
        tool: z.string(),
        index: z.number().int(),
        duration_ms: z.number(),
        ok: z.boolean(),
        error: executionErrorView.optional(),
      })
      .describe("A workflow's step ended: its tool's output passed its schema (ok), or the step failed and ends the workflow"),
    z.object({ type: z.literal('twin_read'), at, work_product_id: z.string(), revision: z.number().int(), branch: z.string() }),
    z.object({
      type: z.literal('twin_written'),
      at,
      work_product_id: z.string(),
      revision: z.number().int(),
      branch: z.string(),
      kind: z.string(),
    }),
    z
      .object({
        type: z.literal('hook_failed'),
        at,
        hook: z.string(),
        phase: z.string(),
        error: z.string(),
        fail_closed: z.boolean().describe('true: the run stopped with HOOK_FAILED; false: it went on'),
      })
      .describe('A hook failed (seed 003 §6)'),
    z.object({ type: z.literal('succeeded'), at, attempt: z.number().int(), duration_ms: z.number(), metadata: hookMetadata }),
    z.object({ type: z.literal('failed'), at, attempt: z.number().int(), error: executionErrorView, metadata: hookMetadata }),
    z.object({ type: z.literal('cancelled'), at, reason: z.string(), metadata: hookMetadata }),
    z.object({
      type: z.literal('log'),
      at,
      level: z.enum(['debug', 'info', 'warning', 'error']),
      message: z.string(),
      fields: jsonObject.optional(),
      truncated: z.literal(true).optional(),
    }),
  ]),
  'One typed event of an execution: the `data` of a Server-Sent Event whose `event` is its `type`',
);

export type ExecutionView = z.input<typeof executionView>;
export type ExecutionListView = z.input<typeof executionListView>;
export type SkillUsageView = z.input<typeof skillUsageView>;
