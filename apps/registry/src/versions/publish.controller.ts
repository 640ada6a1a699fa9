import type { Readable } from 'node:stream';
import { Controller, Post, Query, Req, Res } from '@nestjs/common';
import { ApiConsumes, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal, PublisherOrAdmin } from '../auth/auth.guard.js';
import type { Principal } from '../auth/principal.js';
import { RequestInvalid } from '../problem/domain-errors.js';
import { presentVersion } from '../skills/skill.presenter.js';
import { PublishPackage } from './publish-package.js';
import type { ValidationIssue } from '#skill-loader/index.js';
import { ApiBinaryBody, ApiJson, ApiProblems } from '../openapi/api-decorators.js';
import { type PublishedPackageView, type ValidatedPackageView, publishOutcomeView, publishedPackageView } from './publish.views.js';

@ApiTags('packages')
@PublisherOrAdmin()
@Controller('v1/packages')
export class PublishController {
  constructor(private readonly publishPackage: PublishPackage) {}

  @Post()
  @ApiOperation({
    summary: 'Publish a package: a gzip-compressed tar of one package directory (at the archive root or under one top-level folder)',
    description:
      '201 with the new version; 200 when the same content was published before; 409 VERSION_IMMUTABLE; 422 PACKAGE_INVALID with the validation report (nothing stored).',
  })
  @ApiConsumes('application/gzip')
  @ApiBinaryBody('A gzip-compressed tar of one package directory (also accepted as application/x-gzip)', 'application/gzip')
  @ApiQuery({
    name: 'dry_run',
    required: false,
    schema: { type: 'string', enum: ['true', 'false'] },
    description: 'true: validate and report (200 `valid`) without storing anything',
  })
  @ApiJson(201, publishedPackageView, { description: 'Published: the new version (`outcome: new`)' })
  @ApiJson(200, publishOutcomeView, {
    description: 'The same content was published before (`outcome: unchanged`), or a dry run passed (`outcome: valid`)',
  })
  @ApiProblems(
    'ARCHIVE_REJECTED',
    'VERSION_IMMUTABLE',
    'PACKAGE_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
    'PACKAGE_INVALID',
    'DATABASE_UNAVAILABLE',
  )
  async publish(
    @Req() request: FastifyRequest,
    @Query('dry_run') dryRun: string | undefined,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PublishedPackageView | ValidatedPackageView> {
    if (dryRun !== undefined && dryRun !== 'true' && dryRun !== 'false') {
      throw new RequestInvalid('dry_run must be true or false', [{ field: 'dry_run', message: 'must be true or false' }]);
    }
    const body = request.body as Readable | undefined;
    if (!body || typeof (body as Readable).pipe !== 'function') {
      throw new RequestInvalid('Send the package as a gzip-compressed tar with Content-Type: application/gzip', [
        { field: 'body', message: 'must be application/gzip' },
      ]);
    }
    const published = await this.publishPackage.execute(body, principal, dryRun === 'true');
    if (published.outcome === 'valid') {
      reply.status(200);
      return {
        outcome: 'valid',
        name: published.name,
        version: published.version,
        content_hash: published.contentHash,
        report: published.issues as ValidationIssue[],
        compatibility: published.compatibility,
      };
    }
    reply.status(published.outcome === 'new' ? 201 : 200);
    return { outcome: published.outcome, version: presentVersion(published.version) };
  }
}
