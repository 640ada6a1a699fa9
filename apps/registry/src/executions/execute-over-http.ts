import type { FastifyReply, FastifyRequest } from 'fastify';
import { isTerminal } from '#executions/index.js';
import type { Principal } from '../auth/principal.js';
import { setDeprecationHeaders } from '../skills/deprecation-headers.js';
import { traceContextOf } from '../tracing/request-tracing.js';
import type { ExecuteSkill } from './execute-skill.js';
import { presentExecution } from './execution.presenter.js';
import type { ExecutionView } from './execution.views.js';
import { parseExecuteBody, parseExecuteQuery, parseIdempotencyKey } from './executions.dto.js';

/** One `POST /v1/skills/:name/executions` as it arrived: its path name, body, query, Idempotency-Key header and caller. */
export interface HttpExecuteCall {
  name: string;
  rawBody: unknown;
  rawQuery: unknown;
  rawKey: string | undefined;
  principal: Principal;
  request: FastifyRequest;
  reply: FastifyReply;
}

/**
 * What `POST /v1/skills/:name/executions` does between its checks and its answer, for both of the places that answer
 * it (ExecutionsController, and the front of execute-front.ts): the query and body parsed, the execution created, and
 * the reply's status (200 when it ended within `?wait=`, else 202) and headers set; returns the view to send.
 */
export async function executeOverHttp(executeSkill: ExecuteSkill, call: HttpExecuteCall): Promise<ExecutionView> {
  const { wait } = parseExecuteQuery(call.rawQuery);
  const body = parseExecuteBody(call.rawBody);
  const { execution, version } = await executeSkill.execute({
    name: call.name,
    version: body.version,
    input: body.input,
    sessionId: body.session_id,
    tool: body.tool,
    branch: body.branch,
    traceContext: traceContextOf(call.request),
    caller: call.principal.identity,
    idempotencyKey: parseIdempotencyKey(call.rawKey),
    waitSeconds: wait,
  });
  const { reply } = call;
  setDeprecationHeaders(reply, [version]);
  for (const warning of execution.warnings) reply.header('Warning', `299 - "${warning.replace(/"/g, "'")}"`);
  reply.header('Location', `/v1/executions/${execution.id}`);
  reply.status(isTerminal(execution.status) ? 200 : 202);
  return presentExecution(execution);
}
