import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CursorInvalid, decodeCursor, encodeCursor } from '../../../../libs/contracts/src/index.js';
import { ExecutionsRepository, isTerminal } from '../../../../libs/executions/src/index.js';
import { CurrentPrincipal } from '../auth/auth.guard.js';
import type { Principal } from '../auth/principal.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { ExecutionNotFound, SkillNotFound } from '../problem/domain-errors.js';
import { setDeprecationHeaders } from '../skills/deprecation-headers.js';
import { CancelExecution } from './cancel-execution.js';
import { ExecuteSkill } from './execute-skill.js';
import { presentExecution } from './execution.presenter.js';
import { ExecutionStream } from './execution-stream.js';
import { EXECUTE_BODY_SCHEMA, parseExecuteBody, parseExecuteQuery, parseExecutionId, parseIdempotencyKey, parseListExecutionsQuery } from './executions.dto.js';

@ApiTags('executions')
@Controller('v1')
export class ExecutionsController {
  constructor(
    private readonly executeSkill: ExecuteSkill,
    private readonly cancelExecution: CancelExecution,
    private readonly executions: ExecutionsRepository,
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
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { wait } = parseExecuteQuery(rawQuery);
    const body = parseExecuteBody(rawBody);
    const { execution, version } = await this.executeSkill.execute({
      name,
      version: body.version,
      input: body.input,
      sessionId: body.session_id,
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
    let after: { createdAt: Date; id: string } | undefined;
    if (query.cursor) {
      const [at, id] = decodeCursor(query.cursor).split('|');
      const createdAt = new Date(at ?? '');
      if (!id || Number.isNaN(createdAt.getTime())) throw new CursorInvalid('not an executions cursor');
      after = { createdAt, id };
    }
    const rows = await this.executions.list({ skill: query.skill, status: query.status, sessionId: query.session_id, limit: query.limit + 1, after });
    const items = rows.slice(0, query.limit);
    const last = items[items.length - 1];
    return {
      items: items.map(presentExecution),
      next_cursor: rows.length > query.limit && last ? encodeCursor(`${last.createdAt.toISOString()}|${last.id}`) : null,
    };
  }

  @Get('executions/:id')
  @ApiOperation({ summary: 'One execution' })
  async get(@Param('id') rawId: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const id = parseExecutionId(rawId);
    const execution = await this.executions.findById(id);
    if (!execution) throw new ExecutionNotFound(id);
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
    raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
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
  async usage(@Param('name') name: string) {
    const skill = this.catalog.get(name);
    if (!skill) throw new SkillNotFound(name);
    const usage = new Map((await this.executions.usage(name)).map((row) => [row.version, row]));
    const lastCalls = await this.executions.lastCalls(name);
    const empty = { executions: 0, callers: 0, sessions: 0 };
    return {
      skill: name,
      versions: skill.versions.map((version) => ({
        version: version.version,
        status: version.status,
        windows: usage.get(version.version)?.windows ?? { '7d': empty, '30d': empty, '90d': empty },
        last_called_at: lastCalls.get(version.version)?.toISOString() ?? null,
      })),
    };
  }
}
