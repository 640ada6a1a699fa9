import { z } from 'zod';
import { PLATFORM_EVENT_TYPES } from '#executions/index.js';
import { parseOrThrow } from '../validation.js';
import type { EventsFilter } from './watch-events.js';

/** A stream position (`<ms>-<seq>`) or `0` (the oldest event kept). */
const STREAM_ID = /^(0|\d{1,15}-\d{1,15})$/;
const TYPE_FAMILIES = [...new Set(PLATFORM_EVENT_TYPES.map((type) => type.split('.')[0] as string))];

/** An event type, or a family of them (`run.*`, `tool.*`). */
const typePattern = z
  .string()
  .refine(
    (value) => (PLATFORM_EVENT_TYPES as readonly string[]).includes(value) || TYPE_FAMILIES.some((family) => value === `${family}.*`),
    `must be one of ${PLATFORM_EVENT_TYPES.join(', ')}, or a family: ${TYPE_FAMILIES.map((family) => `${family}.*`).join(', ')}`,
  );

/** `type=run.started&type=tool.*` or `type=run.started,tool.*`: the same list. */
const typeList = z
  .union([z.string(), z.array(z.string()).max(20)])
  .transform((raw) =>
    (Array.isArray(raw) ? raw : [raw])
      .flatMap((entry) => entry.split(','))
      .map((entry) => entry.trim())
      .filter(Boolean),
  )
  .pipe(z.array(typePattern).max(20));

export const eventsQuery = z
  .object({
    type: typeList.optional(),
    skill: z.string().min(1).max(100).optional(),
    session_id: z.string().min(1).max(200).optional(),
    from: z.string().regex(STREAM_ID, 'must be an event id (<ms>-<seq>) or 0 (the oldest kept)').optional(),
  })
  .strict();

/** The REST query (and Last-Event-ID, which wins over `from`, as EventSource sends it when it reconnects). */
export function parseEventsQuery(raw: unknown, lastEventId: string | undefined): EventsFilter {
  const query = parseOrThrow(eventsQuery, raw, 'query');
  const resume =
    lastEventId !== undefined
      ? parseOrThrow(z.string().regex(STREAM_ID, 'must be an event id'), lastEventId, 'Last-Event-ID header')
      : undefined;
  return { types: query.type, skill: query.skill, sessionId: query.session_id, from: resume ?? query.from };
}
