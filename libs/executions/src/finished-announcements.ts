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
