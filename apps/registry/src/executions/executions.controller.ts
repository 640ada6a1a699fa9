import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isTerminal } from '../../../../libs/executions/src/index.js';
import { CurrentPrincipal } from '../auth/auth.guard.js';
import type { Principal } from '../auth/principal.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { setDeprecationHeaders } from '../skills/deprecation-headers.js';
import { CancelExecution } from './cancel-execution.js';
import { ExecuteSkill } from './execute-skill.js';
import { ExecutionQueries } from './execution-queries.js';
import { presentExecution } from './execution.presenter.js';
import { ExecutionStream } from './execution-stream.js';
import { traceContextOf } from '../tracing/request-tracing.js';
import {
  EXECUTE_BODY_SCHEMA,
  parseExecuteBody,
  parseExecuteQuery,
  parseExecutionId,
  parseIdempotencyKey,
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
    private readonly catalog: SkillCatalog,
  ) {}

  @Post('skills/:name/executions')
  @ApiOperation({ summary: 'Execute a skill: 202 with the queued execution, or 200 with the result when ?wait= finishes in time' })
  @ApiQuery({ name: 'wait', required: false, type: Number, description: 'Seconds to wait for the result (0–60)' })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'Same key and body return the same execution' })
  @ApiBody({ schema: EXECUTE_BODY_SCHEMA })
  async execute(
    @Param('name') name: string,
    @Body() rawBody: unknown,
    @Query() rawQuery: Record<string, unknown>,
    @Headers('idempotency-key') rawKey: string | undefined,
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { wait } = parseExecuteQuery(rawQuery);
    const body = parseExecuteBody(rawBody);
    const { execution, version } = await this.executeSkill.execute({
      name,
      version: body.version,
      input: body.input,
      sessionId: body.session_id,
      tool: body.tool,
      branch: body.branch,
      traceContext: traceContextOf(request),
      caller: principal.identity,
      idempotencyKey: parseIdempotencyKey(rawKey),
      waitSeconds: wait,
    });
    setDeprecationHeaders(reply, [version]);
    for (const warning of execution.warnings) reply.header('Warning', `299 - "${warning.replace(/"/g, "'")}"`);
    reply.header('Location', `/v1/executions/${execution.id}`);
    reply.status(isTerminal(execution.status) ? 200 : 202);
    return presentExecution(execution);
  }

  @Get('executions')
  @ApiOperation({ summary: 'Executions, newest first, filtered by skill, status and session; cursor paging' })
  @ApiQuery({ name: 'skill', required: false })
  @ApiQuery({ name: 'status', required: false })
  @ApiQuery({ name: 'session_id', required: false })
  @ApiQuery({ name: 'limit', required: false, type: Number })
  @ApiQuery({ name: 'cursor', required: false })
  async list(@Query() rawQuery: Record<string, unknown>) {
    const query = parseListExecutionsQuery(rawQuery);
    const page = await this.queries.list({
      skill: query.skill,
      status: query.status,
      sessionId: query.session_id,
      limit: query.limit,
      cursor: query.cursor,
    });
    return { items: page.items.map(presentExecution), next_cursor: page.nextCursor };
  }

  @Get('executions/:id')
  @ApiOperation({ summary: 'One execution' })
  async get(@Param('id') rawId: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const execution = await this.queries.get(parseExecutionId(rawId));
    const version = this.catalog.get(execution.skillName)?.versions.find((v) => v.version === execution.version);
    if (version) setDeprecationHeaders(reply, [version]);
    return presentExecution(execution);
  }

  @Post('executions/:id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a queued or running execution' })
  async cancel(@Param('id') rawId: string) {
    return presentExecution(await this.cancelExecution.cancel(parseExecutionId(rawId)));
  }

  @Get('executions/:id/events')
  @ApiProduces('text/event-stream')
  @ApiOperation({ summary: "Server-Sent Events of the execution's typed events, from the beginning, ending when it ends" })
  async events(
    @Param('id') rawId: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const id = parseExecutionId(rawId);
    const controller = new AbortController();
    const events = this.stream.follow(id, lastEventId && /^\d+-\d+$/.test(lastEventId) ? lastEventId : '0', controller.signal);
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
    request.raw.on('close', () => controller.abort());
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
  usage(@Param('name') name: string) {
    return this.queries.usage(name);
  }
}
