import type { ExecutionRecord } from './execution-model.js';
import { toExecutionRecord, type ExecutionRow } from './execution-rows.js';

/**
 * Postgres channel on which every move of an execution to a terminal state is announced, by the
 * very statement that makes it (ExecutionsRepository.finish): the announcement is delivered when,
 * and only when, the new state is committed, whoever decided it (executor, cancellation).
 */
export const EXECUTION_FINISHED_CHANNEL = 'executions_finished';

/**
 * Announcements carry the final row when it fits (NOTIFY payloads must stay under 8000 bytes);
 * larger ones carry only the id, and listeners read the row.
 */
export const FINISHED_PAYLOAD_MAX_BYTES = 7900;

const TIMESTAMP_COLUMNS = ['cancel_requested_at', 'heartbeat_at', 'created_at', 'started_at', 'finished_at'] as const;

/** How row_to_json begins an announced row: the id is the table's first column, a canonical UUID. */
const ROW_PREFIX = '{"id":"';
const UUID_LENGTH = 36;

/**
 * The execution id of an announcement written as row_to_json writes a row, read without parsing the rest; null for
 * any other shape (the id-only form, anything unexpected), which decodeFinished then reads in full. Every end of every
 * execution is announced to every listener: a listener that waits for few of them skips the others at this cost.
 */
export function announcedExecutionId(payload: string): string | null {
  const end = ROW_PREFIX.length + UUID_LENGTH;
  return payload.startsWith(ROW_PREFIX) && payload.charCodeAt(end) === 0x22 ? payload.slice(ROW_PREFIX.length, end) : null;
}

/** Reads an announcement: the execution id, and its final record when the payload carries it. */
export function decodeFinished(payload: string): { id: string; execution: ExecutionRecord | null } | null {
  let row: ExecutionRow;
  try {
    row = JSON.parse(payload) as ExecutionRow;
  } catch {
    return null;
  }
  if (!row || typeof row.id !== 'string') return null;
  if (typeof row.status !== 'string') return { id: row.id, execution: null };
  // row_to_json writes timestamps as ISO strings; records hold Dates.
  for (const column of TIMESTAMP_COLUMNS) row[column] = typeof row[column] === 'string' ? new Date(row[column] as string) : null;
  return { id: row.id, execution: toExecutionRecord(row) };
}
