import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { SKILL_STATUSES } from '../../../../libs/contracts/src/index.js';
import type { FastifyReply } from 'fastify';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { setDeprecationHeaders } from './deprecation-headers.js';
import { parseListSkillsQuery } from './skills.dto.js';
import { SkillJsonCache } from './skill-json-cache.js';
import { SkillQueries } from './skill-queries.js';
import { ToolDirectory } from '../tools/tool-directory.js';
import { presentEvent, presentVersion } from './skill.presenter.js';

@ApiTags('skills')
@Controller('v1/skills')
export class SkillsController {
  constructor(
    private readonly catalog: SkillCatalog,
    private readonly queries: SkillQueries,
    private readonly json: SkillJsonCache,
    private readonly tools: ToolDirectory,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List skills by their current version, filtered and paged' })
  @ApiQuery({ name: 'domain', required: false, description: 'Only skills of this engineering domain' })
  @ApiQuery({ name: 'agent', required: false, description: 'Only skills owned by this agent' })
  @ApiQuery({ name: 'phase', required: false, type: Number, description: 'Only skills usable at this phase (phase ≤ n, 1–3)' })
  @ApiQuery({
    name: 'status',
    required: false,
    enum: SKILL_STATUSES,
    description: 'Status of the current version (default: all but ARCHIVED)',
  })
  @ApiQuery({ name: 'tag', required: false, type: [String], description: 'Repeatable; every tag must match' })
  @ApiQuery({ name: 'q', required: false, description: 'Case-insensitive substring of the name or description' })
  @ApiQuery({ name: 'limit', required: false, type: Number, description: 'Page size, 1–100 (default 50)' })
  @ApiQuery({ name: 'cursor', required: false, description: 'next_cursor of the previous page' })
  list(@Query() rawQuery: Record<string, unknown>, @Res({ passthrough: true }) reply: FastifyReply): string {
    const query = parseListSkillsQuery(rawQuery);
    reply.type('application/json; charset=utf-8');
    return this.json.cachedPage(this.catalog.generation, JSON.stringify(query), () => {
      const page = this.queries.list({
        domain: query.domain,
        agent: query.agent,
        phase: query.phase,
        status: query.status,
        tags: query.tag,
        q: query.q,
        limit: query.limit,
        cursor: query.cursor,
      });
      return this.json.page(
        page.items.map(({ skill }) => skill),
        page.nextCursor,
      );
    });
  }

  @Get(':name')
  @ApiOperation({
    summary: 'The current version of a skill (highest ACTIVE/DEPRECATED, else the highest); with tools_status when it requires tools',
  })
  async get(@Param('name') name: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const { skill, current } = this.queries.get(name);
    setDeprecationHeaders(reply, [current]);
    reply.type('application/json; charset=utf-8');
    if (current.toolsRequired.length === 0) return this.json.skill(skill);
    // Tool availability changes by the second: it is appended to the cached body, never cached itself.
    const cached = this.json.skill(skill);
    return `${cached.slice(0, -1)},"tools_status":${JSON.stringify(await this.tools.statusOf(current.toolsRequired))}}`;
  }

  @Get(':name/versions')
  @ApiOperation({ summary: 'Every version of a skill, newest first' })
  versions(@Param('name') name: string) {
    return { items: this.queries.versions(name).map(presentVersion) };
  }

  @Get(':name/versions/:version')
  @ApiOperation({ summary: 'One version of a skill' })
  version(@Param('name') name: string, @Param('version') version: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const found = this.queries.version(name, version);
    setDeprecationHeaders(reply, [found]);
    return presentVersion(found);
  }

  @Get(':name/history')
  @ApiOperation({ summary: 'Lifecycle events of every version, oldest first' })
  async history(@Param('name') name: string) {
    return { items: (await this.queries.history(name)).map(presentEvent) };
  }
}
