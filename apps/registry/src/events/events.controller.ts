import { Controller, Get, Headers, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal, PublisherOrAdmin } from '../auth/auth.guard.js';
import type { Principal } from '../auth/principal.js';
import { ApiContent, ApiProblems, ApiQueryParams } from '../openapi/api-decorators.js';
import { componentRef } from '../openapi/openapi-components.js';
import { eventsQuery, parseEventsQuery } from './events.dto.js';
import { streamPlatformEvents } from './events.presenter.js';
import { platformEventView } from './events.views.js';
import { WatchEvents } from './watch-events.js';

@ApiTags('events')
@Controller('v1')
export class EventsController {
  constructor(private readonly watchEvents: WatchEvents) {}

  @Get('events')
  @PublisherOrAdmin()
  @ApiOperation({
    summary: "Server-Sent Events of every execution's and every lifecycle change's events, filtered; resumable",
    description:
      'Seed 003 §7: one typed, timestamped stream (types `run.*`, `skill.output_invalid`, `tool.*`, `twin.*`, `hook.failed`, ' +
      '`skill.lifecycle`). Each event is `id: <stream id>`, `event: <type>`, `data: <PlatformEvent as JSON>`; comment lines keep a quiet ' +
      'stream open. Live from now unless `from` (or Last-Event-ID) names a position: the history is bounded (EVENTS_HISTORY_MAX), so a ' +
      'position older than it resumes at the oldest kept. An admin token sees every event, a publisher token those of the skills its ' +
      'scopes cover. If reading fails midway, `event: error` ends it: reconnect with Last-Event-ID.',
  })
  @ApiQueryParams(eventsQuery, {
    type: 'Only these types; a family with `.*` (`run.*`); repeat or comma-separate',
    skill: 'Only events of this skill',
    session_id: 'Only events of executions of this agent session',
    from: 'Resume after this event id; `0` for the oldest kept (default: from now on)',
  })
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'Resume after this event id (wins over `from`)' })
  @ApiContent(
    200,
    {
      'text/event-stream': {
        type: 'string',
        description: 'Server-Sent Events; the `data` of each is a PlatformEvent',
        'x-sse-data': componentRef(platformEventView),
      },
    },
    { description: 'The event stream (Cache-Control: no-cache); it stays open until the client leaves', headers: ['Cache-Control'] },
  )
  @ApiProblems('QUEUE_UNAVAILABLE', 'TOO_MANY_STREAMS', 'TOO_MANY_STREAMS_FOR_CALLER')
  async events(
    @Query() rawQuery: Record<string, unknown>,
    @Headers('last-event-id') lastEventId: string | undefined,
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const controller = new AbortController();
    const events = await this.watchEvents.watch(principal, parseEventsQuery(rawQuery, lastEventId), controller.signal);
    await streamPlatformEvents(request, reply, events, controller);
  }
}
