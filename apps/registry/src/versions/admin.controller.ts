import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags, type SchemaObject } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AdminOnly, CurrentPrincipal, PublisherOrAdmin } from '../auth/auth.guard.js';
import type { Principal } from '../auth/principal.js';
import { DiscoveryService } from './discovery.service.js';
import { setDeprecationHeaders } from '../skills/deprecation-headers.js';
import { presentVersion } from '../skills/skill.presenter.js';
import { ApiJson, ApiProblems, DEPRECATION_HEADERS } from '../openapi/api-decorators.js';
import { inlineSchema } from '../openapi/openapi-components.js';
import { type SkillVersionView, skillVersionView } from '../skills/skill.views.js';
import {
  type DiscoveryReportView,
  type RegistrationView,
  deprecatedVersionsView,
  discoveryReportView,
  registrationView,
} from './admin.views.js';
import { deprecateSkillBody, parseAdminBody, promoteSkillBody, registerSkillBody } from './admin.dto.js';
import { DeprecateSkill } from './deprecate-skill.js';
import { PromoteSkill } from './promote-skill.js';

@ApiTags('admin')
@AdminOnly()
@Controller('v1/admin')
export class AdminController {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly promoteSkill: PromoteSkill,
    private readonly deprecateSkill: DeprecateSkill,
  ) {}

  @Post('discover')
  @HttpCode(200)
  @ApiOperation({ summary: 'Rescan SKILL_PATHS: register new and changed packages, archive removed ones' })
  @ApiJson(200, discoveryReportView, { description: 'What the rescan found and did' })
  @ApiProblems('DATABASE_UNAVAILABLE')
  discover(@CurrentPrincipal() principal: Principal): Promise<DiscoveryReportView> {
    return this.discovery.discover(principal.identity);
  }

  @Post('skills')
  @ApiOperation({ summary: 'Register one package (its path must lie inside a SKILL_PATHS root)' })
  @ApiJson(201, registrationView, { description: 'A new version was registered (`outcome: new`)' })
  @ApiJson(200, registrationView, {
    description: 'Nothing new: the package was `unchanged`, `updated` (a DRAFT re-validated) or `refused` (see `message`)',
  })
  @ApiProblems(
    'PATH_OUTSIDE_SKILL_PATHS',
    'PACKAGE_NOT_FOUND',
    'NOT_A_PACKAGE',
    'VERSION_IMMUTABLE',
    'PACKAGE_TOO_LARGE',
    'DATABASE_UNAVAILABLE',
  )
  @ApiBody({ schema: inlineSchema(registerSkillBody) as SchemaObject })
  async register(
    @Body() raw: unknown,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RegistrationView> {
    const body = parseAdminBody(registerSkillBody, raw);
    const { report, version } = await this.discovery.register(body.path, principal.identity);
    reply.status(report.outcome === 'new' ? 201 : 200);
    return { outcome: report.outcome, message: report.message, version: version ? presentVersion(version) : null };
  }

  @Post('skills/:name/versions/:version/promote')
  @HttpCode(200)
  @ApiOperation({ summary: 'REGISTERED → ACTIVE on evidence (or forced, with a reason)' })
  @ApiJson(200, skillVersionView, { description: 'The promoted version, now ACTIVE' })
  @ApiProblems(
    'SKILL_NOT_FOUND',
    'INVALID_TRANSITION',
    'PROMOTION_EVIDENCE_FAILED',
    'CONCURRENT_MODIFICATION',
    'QUEUE_UNAVAILABLE',
    'DATABASE_UNAVAILABLE',
  )
  @ApiBody({ schema: inlineSchema(promoteSkillBody) as SchemaObject, required: false })
  async promote(
    @Param('name') name: string,
    @Param('version') version: string,
    @Body() raw: unknown,
    @CurrentPrincipal() principal: Principal,
  ): Promise<SkillVersionView> {
    const body = parseAdminBody(promoteSkillBody, raw);
    const promoted = await this.promoteSkill.execute({ name, version, actor: principal.identity, reason: body.reason, force: body.force });
    return presentVersion(promoted);
  }

  @Post('skills/:name/deprecate')
  @PublisherOrAdmin()
  @HttpCode(200)
  @ApiOperation({
    summary: 'ACTIVE → DEPRECATED for one version, or every ACTIVE version (admins, and publishers for names in their scopes)',
  })
  @ApiJson(200, deprecatedVersionsView, { description: 'The versions now DEPRECATED', headers: DEPRECATION_HEADERS })
  @ApiProblems('SKILL_NOT_FOUND', 'INVALID_TRANSITION', 'DEPENDENTS_EXIST', 'CONCURRENT_MODIFICATION', 'DATABASE_UNAVAILABLE')
  @ApiBody({ schema: inlineSchema(deprecateSkillBody) as SchemaObject })
  async deprecate(
    @Param('name') name: string,
    @Body() raw: unknown,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ items: SkillVersionView[] }> {
    const body = parseAdminBody(deprecateSkillBody, raw);
    const versions = await this.deprecateSkill.execute({
      name,
      by: principal,
      reason: body.reason,
      version: body.version,
      successor: body.successor,
      sunset: body.sunset ? new Date(body.sunset) : undefined,
      force: body.force,
    });
    setDeprecationHeaders(reply, versions);
    return { items: versions.map(presentVersion) };
  }
}
