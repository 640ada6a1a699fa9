import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal } from '../auth/auth.guard.js';
import { callerKey, type Principal } from '../auth/principal.js';
import { setDeprecationHeaders } from '../skills/deprecation-headers.js';
import { CancelExecution } from './cancel-execution.js';
import { ExecuteSkill } from './execute-skill.js';
import { executeOverHttp } from './execute-over-http.js';
import { ExecutionQueries } from './execution-queries.js';
import { presentExecution } from './execution.presenter.js';
import { ExecutionStream, resumePosition } from './execution-stream.js';
import { ApiContent, ApiJson, ApiProblems, ApiQueryParams, DEPRECATION_HEADERS } from '../openapi/api-decorators.js';
import { componentRef, inlineSchema } from '../openapi/openapi-components.js';
import { executeRequestExamples, finishedExecutionExamples, queuedExecutionExamples } from './execution-examples.js';
import {
  type ExecutionListView,
  type ExecutionView,
  type SkillUsageView,
  executionEventView,
  executionListView,
  executionView,
  skillUsageView,
} from './execution.views.js';
import {
  EXECUTE_BODY_SCHEMA,
  executeQuery,
  executionIdParam,
  idempotencyKey,
  listExecutionsQuery,
  parseExecutionId,
  parseListExecutionsQuery,
} from './executions.dto.js';

@ApiTags('executions')
@Controller('v1')
export class ExecutionsController {
  constructor(
    private readonly executeSkill: ExecuteSkill,
    private readonly cancelExecution: CancelExecution,
    private readonly queries: ExecutionQueries,
    private readonly stream: ExecutionStream,
  ) {}

  @Post('skills/:name/executions')
  @ApiOperation({ summary: 'Execute a skill: 202 with the queued execution, or 200 with the result when ?wait= finishes in time' })
  @ApiQueryParams(executeQuery, { wait: 'Seconds to wait for the result (0–60); 200 with the finished execution when it ends in time' })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: 'Same key and body return the same execution (another body: 409)',
    schema: inlineSchema(idempotencyKey),
  })
  @ApiBody({ schema: EXECUTE_BODY_SCHEMA, examples: executeRequestExamples })
  @ApiJson(202, executionView, {
    description: 'Accepted: the execution is queued (or running, or ?wait= ran out); poll Location or stream its events',
    headers: ['Location', 'Warning', ...DEPRECATION_HEADERS],
    examples: queuedExecutionExamples,
  })
  @ApiJson(200, executionView, {
    description: 'The execution finished within ?wait= (SUCCEEDED, FAILED or CANCELLED; a failure is in `error`)',
    headers: ['Location', 'Warning', ...DEPRECATION_HEADERS],
    examples: finishedExecutionExamples,
  })
  @ApiProblems(
    'SKILL_NOT_FOUND',
    'TOOL_NOT_FOUND',
    'TWIN_BRANCH_NOT_FOUND',
    'INPUT_INVALID',
    'SKILL_NOT_EXECUTABLE',
    'IDEMPOTENCY_KEY_REUSED',
    'QUEUE_UNAVAILABLE',
    'DATABASE_UNAVAILABLE',
  )
  async execute(
    @Param('name') name: string,
    @Body() rawBody: unknown,
    @Query() rawQuery: Record<string, unknown>,
    @Headers('idempotency-key') rawKey: string | undefined,
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ExecutionView> {
    return executeOverHttp(this.executeSkill, { name, rawBody, rawQuery, rawKey, principal, request, reply });
  }

  @Get('executions')
  @ApiOperation({ summary: 'Executions, newest first, filtered by skill, status, session and creation time; cursor paging' })
  @ApiQueryParams(listExecutionsQuery, {
    skill: 'Only executions of this skill',
    status: 'Only executions in this state',
    session_id: 'Only executions of this agent session',
    since: 'Only executions created at or after this time (ISO 8601 with an offset)',
    until: 'Only executions created before this time (ISO 8601 with an offset)',
    limit: 'Page size, 1–100 (default 50)',
    cursor: 'next_cursor of the previous page',
  })
  @ApiJson(200, executionListView, { description: 'A page of executions, newest first' })
  @ApiProblems('INVALID_CURSOR', 'DATABASE_UNAVAILABLE')
  async list(@Query() rawQuery: Record<string, unknown>): Promise<ExecutionListView> {
    const query = parseListExecutionsQuery(rawQuery);
    const page = await this.queries.list({
      skill: query.skill,
      status: query.status,
      sessionId: query.session_id,
      since: query.since,
      until: query.until,
      limit: query.limit,
      cursor: query.cursor,
    });
    return { items: page.items.map(presentExecution), next_cursor: page.nextCursor };
  }

  @Get('executions/:id')
  @ApiParam({ name: 'id', schema: inlineSchema(executionIdParam), description: 'The execution id' })
  @ApiOperation({ summary: 'One execution' })
  @ApiJson(200, executionView, { description: 'The execution', headers: DEPRECATION_HEADERS })
  @ApiProblems('EXECUTION_NOT_FOUND', 'DATABASE_UNAVAILABLE')
  async get(@Param('id') rawId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<ExecutionView> {
    const { execution, version } = await this.queries.getWithVersion(parseExecutionId(rawId));
    if (version) setDeprecationHeaders(reply, [version]);
    return presentExecution(execution);
  }

  @Post('executions/:id/cancel')
  @HttpCode(200)
  @ApiParam({ name: 'id', schema: inlineSchema(executionIdParam), description: 'The execution id' })
  @ApiOperation({ summary: 'Cancel a queued or running execution' })
  @ApiJson(200, executionView, {
    description: 'Cancelled at once (it was queued), or cancellation requested (it is running: `cancel_requested_at` is set)',
  })
  @ApiProblems('EXECUTION_NOT_FOUND', 'EXECUTION_FINISHED', 'QUEUE_UNAVAILABLE', 'DATABASE_UNAVAILABLE')
  async cancel(@Param('id') rawId: string): Promise<ExecutionView> {
    return presentExecution(await this.cancelExecution.cancel(parseExecutionId(rawId)));
  }

  @Get('executions/:id/events')
  @ApiOperation({
    summary: "Server-Sent Events of the execution's typed events, from the beginning, ending when it ends",
    description:
      'Each event is `id: <stream id>`, `event: <type>`, `data: <ExecutionEvent as JSON>`; the stream ends with `succeeded`, ' +
      '`failed` or `cancelled`. If reading the stream fails midway, a last `event: error` with `data: {"message"}` ends it: ' +
      'reconnect with `Last-Event-ID`.',
  })
  @ApiParam({ name: 'id', schema: inlineSchema(executionIdParam), description: 'The execution id' })
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'Resume after this event id (`<ms>-<seq>`)' })
  @ApiContent(
    200,
    {
      'text/event-stream': {
        type: 'string',
        description: 'Server-Sent Events; the `data` of each is an ExecutionEvent',
        'x-sse-data': componentRef(executionEventView),
      },
    },
    { description: 'The event stream (Cache-Control: no-cache)', headers: ['Cache-Control'] },
  )
  @ApiProblems('EXECUTION_NOT_FOUND', 'QUEUE_UNAVAILABLE', 'TOO_MANY_STREAMS', 'TOO_MANY_STREAMS_FOR_CALLER', 'DATABASE_UNAVAILABLE')
  async events(
    @Param('id') rawId: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const id = parseExecutionId(rawId);
    const controller = new AbortController();
    // Before the first read: a client gone meanwhile ends the stream too (and gives back its reader, see StreamReaders).
    request.raw.on('close', () => controller.abort());
    const events = this.stream.follow(id, resumePosition(lastEventId), controller.signal, callerKey(principal, request.ip));
    // Pull the first event before answering, so an unknown id still gets a 404 problem.
    const first = await events.next();
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const write = (stored: { id: string; event: { type: string } }) =>
      raw.write(`id: ${stored.id}\nevent: ${stored.event.type}\ndata: ${JSON.stringify(stored.event)}\n\n`);
    try {
      if (!first.done) write(first.value);
      for await (const stored of events) write(stored);
    } catch {
      raw.write(`event: error\ndata: ${JSON.stringify({ message: 'event stream interrupted; reconnect with Last-Event-ID' })}\n\n`);
    } finally {
      controller.abort();
      raw.end();
    }
  }

  @Get('skills/:name/usage')
  @ApiOperation({ summary: 'Per version: executions, distinct callers and sessions in the last 7/30/90 days, and the last call' })
  @ApiJson(200, skillUsageView, { description: 'Usage per version, and the dependents' })
  @ApiProblems('SKILL_NOT_FOUND', 'DATABASE_UNAVAILABLE')
  usage(@Param('name') name: string): Promise<SkillUsageView> {
    return this.queries.usage(name);
  }
}
