import { z } from 'zod';
import { type PlatformEventType } from '#executions/index.js';
import { executionEventView } from '../executions/execution.views.js';
import { apiComponent } from '../openapi/openapi-components.js';
import { isoDateTime } from '../openapi/wire-types.js';

/** A version's lifecycle move, as LifecycleEventsPublisher writes it. */
const lifecycleMoveView = z
  .object({
    type: z.literal('skill.lifecycle'),
    skill: z.string(),
    version: z.string(),
    from: z.string().nullable().describe('The status it left; null for a new version'),
    to: z.string(),
    actor: z.string(),
    reason: z.string().nullable(),
    forced: z.boolean(),
    at: isoDateTime,
  })
  .describe("A version's lifecycle move");

/** Which execution event each platform type carries as its `data` (the per-execution stream's name is its `type`). */
const EXECUTION_TYPE_OF: Record<Exclude<PlatformEventType, 'skill.lifecycle'>, string> = {
  'run.queued': 'queued',
  'run.started': 'started',
  'run.retrying': 'attempt_failed',
  'run.completed': 'succeeded',
  'run.failed': 'failed',
  'run.cancelled': 'cancelled',
  'skill.output_invalid': 'output_invalid',
  'tool.invoked': 'tool_invoked',
  'tool.completed': 'tool_completed',
  'tool.failed': 'tool_completed',
  'step.started': 'step_started',
  'step.completed': 'step_completed',
  'step.failed': 'step_completed',
  'twin.read': 'twin_read',
  'twin.written': 'twin_written',
  'hook.failed': 'hook_failed',
};

const DESCRIPTIONS: Record<PlatformEventType, string> = {
  'run.queued': 'An execution was stored and queued',
  'run.started': 'An attempt of an execution started',
  'run.retrying': 'An attempt failed and the execution will be tried again',
  'run.completed': 'An execution succeeded',
  'run.failed': 'An execution failed for good',
  'run.cancelled': 'An execution was cancelled',
  'skill.output_invalid': "A handler's result failed output validation (gates that re-ask)",
  'tool.invoked': 'A handler called an adapter tool',
  'tool.completed': 'An adapter tool call returned (also a disabled tool, with `disabled: true`)',
  'tool.failed': 'An adapter tool call failed',
  'step.started': "A workflow's step is about to run its tool (seed 004 workflows)",
  'step.completed': "A workflow's step ran its tool and the output passed its schema",
  'step.failed': "A workflow's step failed, ending its workflow",
  'twin.read': 'A handler read a digital twin revision',
  'twin.written': 'A handler wrote a digital twin revision',
  'hook.failed': 'A hook failed; with no execution (execution_id null) when it ran in pre_flight',
  'skill.lifecycle': "A skill version's lifecycle move",
};

function executionVariant(type: string): z.ZodType {
  const variant = executionEventView.options.find(
    (option) => (option as z.ZodObject<{ type: z.ZodLiteral<string> }>).shape.type.value === type,
  );
  if (!variant) throw new Error(`no execution event '${type}'`);
  return variant;
}

function platformEventOf(type: PlatformEventType) {
  return z
    .object({
      id: z.string().describe('Its position in the stream (`<ms>-<seq>`): the SSE id, resume after it'),
      type: z.literal(type),
      at: isoDateTime,
      execution_id: z.string().nullable(),
      skill: z.string().nullable(),
      session_id: z.string().nullable(),
      data: type === 'skill.lifecycle' ? lifecycleMoveView : executionVariant(EXECUTION_TYPE_OF[type]),
    })
    .describe(DESCRIPTIONS[type]);
}

/** The `data` of each Server-Sent Event of GET /v1/events (its `event` is the `type`), and gRPC WatchEvents' PlatformEvent. */
export const platformEventView = apiComponent(
  'PlatformEvent',
  z.discriminatedUnion('type', [
    platformEventOf('run.queued'),
    platformEventOf('run.started'),
    platformEventOf('run.retrying'),
    platformEventOf('run.completed'),
    platformEventOf('run.failed'),
    platformEventOf('run.cancelled'),
    platformEventOf('skill.output_invalid'),
    platformEventOf('tool.invoked'),
    platformEventOf('tool.completed'),
    platformEventOf('tool.failed'),
    platformEventOf('twin.read'),
    platformEventOf('twin.written'),
    platformEventOf('hook.failed'),
    platformEventOf('skill.lifecycle'),
  ]),
  "One event of the platform's stream (seed 003 §7's names): an execution's move or a lifecycle change, typed and timestamped; `data` is the event as its source wrote it",
);

export type PlatformEventView = z.input<typeof platformEventView>;
