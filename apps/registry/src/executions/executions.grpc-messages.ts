import type { ExecutionRecord, StoredExecutionEvent } from '#executions/index.js';
import { compact, enumGiven, given, required, withProtoFields } from '../grpc/grpc-fields.js';
import { type ProtoStruct, fromStruct, toStruct, toTimestamp } from '../grpc/proto-values.js';
import { RequestInvalid } from '../problem/domain-errors.js';
import { presentExecution } from './execution.presenter.js';
import { parseExecuteBody, parseExecuteQuery, parseIdempotencyKey, parseListExecutionsQuery } from './executions.dto.js';

/** Executions over gRPC: requests through the REST parsers, messages from the REST presenter's output. */

type Json = Record<string, unknown>;

export function executionMessage(execution: ExecutionRecord) {
  const json = presentExecution(execution);
  return {
    ...json,
    input: toStruct(json.input),
    output: toStruct(json.output),
    error: json.error ? { code: json.error.code, message: json.error.message, details: toStruct(json.error.details) } : undefined,
    session_id: json.session_id ?? undefined,
    tool: json.tool ?? undefined,
    trace_id: json.trace_id ?? undefined,
    cancel_requested_at: toTimestamp(json.cancel_requested_at),
    created_at: toTimestamp(json.created_at),
    started_at: toTimestamp(json.started_at),
    finished_at: toTimestamp(json.finished_at),
    duration_ms: json.duration_ms ?? undefined,
  };
}

/** One event of the execution's stream: the same id, type and JSON the SSE stream sends. */
export function executionEventMessage(stored: StoredExecutionEvent) {
  return {
    id: stored.id,
    type: stored.event.type,
    at: toTimestamp(stored.event.at),
    data: toStruct(stored.event as unknown as Json),
  };
}

export function usageMessage(usage: {
  skill: string;
  versions: { version: string; status: string; windows: Json; last_called_at: string | null }[];
  dependents: unknown[];
}) {
  return {
    skill: usage.skill,
    dependents: usage.dependents,
    versions: usage.versions.map((version) => ({ ...version, last_called_at: toTimestamp(version.last_called_at) })),
  };
}

export interface ListExecutionsRequest {
  skill?: string;
  status?: string;
  session_id?: string;
  limit?: number;
  cursor?: string;
}

export function parseListExecutions(request: ListExecutionsRequest) {
  const query = parseListExecutionsQuery(
    compact({
      skill: given(request.skill),
      status: enumGiven(request.status, 'status'),
      session_id: given(request.session_id),
      limit: given(request.limit),
      cursor: given(request.cursor),
    }),
  );
  return { skill: query.skill, status: query.status, sessionId: query.session_id, limit: query.limit, cursor: query.cursor };
}

export interface ExecuteSkillRequest {
  name?: string;
  input?: ProtoStruct | null;
  version?: string;
  session_id?: string;
  idempotency_key?: string;
  wait_seconds?: number;
  tool?: string;
  branch?: string;
}

export function parseExecuteSkill(request: ExecuteSkillRequest) {
  const name = required(request.name, 'name');
  if (!request.input) {
    throw new RequestInvalid('input is required (send an empty object for none)', [{ field: 'input', message: 'must be a JSON object' }]);
  }
  const body = parseExecuteBody(
    compact({
      input: fromStruct(request.input),
      version: given(request.version),
      session_id: given(request.session_id),
      tool: given(request.tool),
      branch: given(request.branch),
    }),
  );
  const { wait } = withProtoFields(() => parseExecuteQuery(compact({ wait: given(request.wait_seconds) })), { wait: 'wait_seconds' });
  const idempotencyKey = withProtoFields(() => parseIdempotencyKey(given(request.idempotency_key)), {
    'Idempotency-Key header': 'idempotency_key',
  });
  return {
    name,
    version: body.version,
    tool: body.tool,
    branch: body.branch,
    input: body.input,
    sessionId: body.session_id,
    idempotencyKey,
    waitSeconds: wait,
  };
}
