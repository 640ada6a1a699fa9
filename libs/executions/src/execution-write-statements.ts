import { EXECUTION_FINISHED_CHANNEL, FINISHED_PAYLOAD_MAX_BYTES } from './finished-announcements.js';

/**
 * The multi-row statements of the execution write path. Each takes one array per column (one
 * element per row, unnest), applies every row's own conditions, and returns the rows it changed,
 * so a caller learns whether its own row applied. One statement is one transaction: all its rows
 * are committed together, or none is.
 */

const TERMINAL = `('SUCCEEDED','FAILED','CANCELLED')`;

/** Inserts QUEUED executions; a row whose (caller, idempotency key) is taken is skipped (not returned). */
export const CREATE_EXECUTIONS = createExecutions('');

/**
 * CREATE_EXECUTIONS committed without waiting for the disk: `synchronous_commit` is off for its transaction
 * alone (set_config's local setting holds until that transaction's commit, which reads it). See
 * ExecutionsRepository.createMany's `commit`.
 */
export const CREATE_EXECUTIONS_UNFLUSHED = createExecutions(`WHERE set_config('synchronous_commit', 'off', true) IS NOT NULL`);

function createExecutions(where: string): string {
  return `
  INSERT INTO executions (id, skill_version_id, skill_name, version, purpose, status, input, max_attempts, warnings,
                          session_id, caller, idempotency_key, request_hash, tool, branch, trace_id, trace_parent)
  SELECT r.id, r.skill_version_id, r.skill_name, r.version, r.purpose, 'QUEUED', r.input::jsonb, r.max_attempts, r.warnings::jsonb,
         r.session_id, r.caller, r.idempotency_key, r.request_hash, r.tool, r.branch, r.trace_id, r.trace_parent
    FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[],
                $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[])
         AS r(id, skill_version_id, skill_name, version, purpose, input, max_attempts, warnings,
              session_id, caller, idempotency_key, request_hash, tool, branch, trace_id, trace_parent)
   ${where}
  ON CONFLICT (caller, idempotency_key) DO NOTHING
  RETURNING *`;
}

/**
 * Starts the next attempt of each execution that is waiting for one (QUEUED, or RUNNING between
 * attempts, no attempt marked running, no cancellation asked); returns the rows it started. A row with
 * `ran_for_ms` is an attempt that has already run that long (a deferred start, see StartRequest.ranForMs):
 * a first start is recorded as that long ago, but never before the row's creation (a job enqueued alongside the
 * insert, ExecutionJob.early, may start running before the insert's transaction began).
 */
export const START_ATTEMPTS = `
  UPDATE executions e
     SET status = 'RUNNING', attempts = e.attempts + 1, attempt_running = true,
         started_at = COALESCE(e.started_at, GREATEST(e.created_at, now() - (COALESCE(r.ran_for_ms, 0) * interval '1 millisecond'))),
         heartbeat_at = now()
    FROM unnest($1::uuid[], $2::int[]) AS r(id, ran_for_ms)
   WHERE e.id = r.id AND e.status IN ('QUEUED', 'RUNNING') AND NOT e.attempt_running AND e.cancel_requested_at IS NULL
  RETURNING e.*`;

/**
 * AttemptGuard of each row (see executions.repository.ts): `r.attempt` and `r.stale_for_ms`, a
 * null disabling its part.
 */
const ROW_GUARD = `(r.attempt IS NULL OR (e.attempts = r.attempt AND e.attempt_running))
     AND (r.stale_for_ms IS NULL OR e.heartbeat_at < now() - (r.stale_for_ms * interval '1 millisecond'))`;

/**
 * Moves each execution to its terminal state unless it already is in one or its guard fails, and
 * announces each row it moved on EXECUTION_FINISHED_CHANNEL in the same transaction (one NOTIFY per
 * row, delivered at commit, with the final row when it fits).
 *
 * A row with `unstarted_ms` is a first attempt that ran for that long without its start written (see
 * FinishRequest.unstartedMs): it applies only while the execution is untouched (QUEUED, no attempt,
 * none running, no cancellation asked) and records that attempt as attempt 1, started that long ago (not before
 * the row's creation, as in START_ATTEMPTS).
 */
export const FINISH_EXECUTIONS = `
  WITH finished AS (
    UPDATE executions e
       SET status = r.status, output = r.output::jsonb, error = r.error::jsonb, attempt_running = false, finished_at = now(),
           input = COALESCE(r.input::jsonb, e.input),
           attempts = CASE WHEN r.unstarted_ms IS NULL THEN e.attempts ELSE 1 END,
           started_at = CASE WHEN r.unstarted_ms IS NULL THEN e.started_at
                             ELSE GREATEST(e.created_at, now() - (r.unstarted_ms * interval '1 millisecond')) END,
           duration_ms = COALESCE(r.unstarted_ms,
                                  GREATEST(0, (EXTRACT(EPOCH FROM (now() - COALESCE(e.started_at, e.created_at))) * 1000)::int))
      FROM unnest($1::uuid[], $2::"ExecutionStatus"[], $3::text[], $4::text[], $5::int[], $6::int[], $7::int[], $8::text[])
           AS r(id, status, output, error, attempt, stale_for_ms, unstarted_ms, input)
     WHERE e.id = r.id AND e.status NOT IN ${TERMINAL} AND ${ROW_GUARD}
       AND (r.unstarted_ms IS NULL
            OR (e.status = 'QUEUED' AND e.attempts = 0 AND NOT e.attempt_running AND e.cancel_requested_at IS NULL))
    RETURNING e.*)
  SELECT finished.*,
         pg_notify('${EXECUTION_FINISHED_CHANNEL}',
                   CASE WHEN octet_length(announced.payload) <= ${FINISHED_PAYLOAD_MAX_BYTES} THEN announced.payload
                        ELSE json_build_object('id', finished.id)::text END) AS notified
    FROM finished, LATERAL (SELECT row_to_json(finished)::text AS payload) announced`;
