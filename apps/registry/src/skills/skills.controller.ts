import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendJsonRead } from './conditional-get.js';
import {
  ApiJson,
  ApiNotModified,
  ApiProblems,
  ApiQueryParams,
  DEPRECATION_HEADERS,
  type ResponseHeader,
} from '../openapi/api-decorators.js';
import { listSkillsQuery, parseListSkillsQuery } from './skills.dto.js';
import {
  type LifecycleEventView,
  lifecycleHistoryView,
  skillListView,
  skillVersionListView,
  skillVersionView,
  skillView,
} from './skill.views.js';
import { SkillQueries } from './skill-queries.js';
import { SkillReads } from './skill-reads.js';
import { presentEvent } from './skill.presenter.js';

/** What every catalog read sends (conditional-get.ts): its ETag, and Cache-Control no-cache (revalidate each time). */
const CATALOG_READ_HEADERS: ResponseHeader[] = ['ETag', 'Cache-Control'];

@ApiTags('skills')
@Controller('v1/skills')
export class SkillsController {
  constructor(
    private readonly queries: SkillQueries,
    private readonly reads: SkillReads,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List skills by their current version, filtered and paged' })
  @ApiQueryParams(listSkillsQuery, {
    domain: 'Only skills of this engineering domain',
    agent: 'Only skills owned by this agent',
    phase: 'Only skills usable at this phase (phase ≤ n, 1–3)',
    status: 'Status of the current version (default: all but ARCHIVED)',
    tag: 'Repeatable; every tag must match',
    q: 'Case-insensitive substring of the name or description',
    limit: 'Page size, 1–100 (default 50)',
    cursor: 'next_cursor of the previous page',
  })
  @ApiJson(200, skillListView, { description: 'A page of skills in name order', headers: CATALOG_READ_HEADERS })
  @ApiNotModified()
  @ApiProblems('INVALID_CURSOR')
  list(@Query() rawQuery: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    sendJsonRead(request, reply, this.reads.list(parseListSkillsQuery(rawQuery)));
  }

  @Get(':name')
  @ApiOperation({
    summary: 'The current version of a skill (highest ACTIVE/DEPRECATED, else the highest); with tools_status when it requires tools',
  })
  @ApiJson(200, skillView, { description: 'The skill', headers: [...CATALOG_READ_HEADERS, ...DEPRECATION_HEADERS] })
  @ApiNotModified()
  @ApiProblems('SKILL_NOT_FOUND')
  async get(@Param('name') name: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    sendJsonRead(request, reply, await this.reads.current(name));
  }

  @Get(':name/versions')
  @ApiOperation({ summary: 'Every version of a skill, newest first' })
  @ApiJson(200, skillVersionListView, { description: 'The versions', headers: CATALOG_READ_HEADERS })
  @ApiNotModified()
  @ApiProblems('SKILL_NOT_FOUND')
  versions(@Param('name') name: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    sendJsonRead(request, reply, this.reads.versions(name));
  }

  @Get(':name/versions/:version')
  @ApiOperation({ summary: 'One version of a skill' })
  @ApiJson(200, skillVersionView, { description: 'The version', headers: [...CATALOG_READ_HEADERS, ...DEPRECATION_HEADERS] })
  @ApiNotModified()
  @ApiProblems('SKILL_NOT_FOUND')
  version(
    @Param('name') name: string,
    @Param('version') version: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): void {
    sendJsonRead(request, reply, this.reads.version(name, version));
  }

  @Get(':name/history')
  @ApiOperation({ summary: 'Lifecycle events of every version, oldest first' })
  @ApiJson(200, lifecycleHistoryView, { description: 'The lifecycle events' })
  @ApiProblems('SKILL_NOT_FOUND', 'DATABASE_UNAVAILABLE')
  async history(@Param('name') name: string): Promise<{ items: LifecycleEventView[] }> {
    return { items: (await this.queries.history(name)).map(presentEvent) };
  }
}
