import type { Readable } from 'node:stream';
import { Controller, Post, Query, Req, Res } from '@nestjs/common';
import { ApiConsumes, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal, PublisherOrAdmin } from '../auth/auth.guard.js';
import type { Principal } from '../auth/principal.js';
import { RequestInvalid } from '../problem/domain-errors.js';
import { presentVersion } from '../skills/skill.presenter.js';
import { PublishPackage } from './publish-package.js';

@ApiTags('packages')
@PublisherOrAdmin()
@Controller('v1/packages')
export class PackagesController {
  constructor(private readonly publishPackage: PublishPackage) {}

  @Post()
  @ApiOperation({
    summary: 'Publish a package: a gzip-compressed tar of one package directory (at the archive root or under one top-level folder)',
    description:
      '201 with the new version; 200 when the same content was published before; 409 VERSION_IMMUTABLE; 422 PACKAGE_INVALID with the validation report (nothing stored).',
  })
  @ApiConsumes('application/gzip')
  @ApiQuery({ name: 'dry_run', required: false, type: Boolean })
  async publish(
    @Req() request: FastifyRequest,
    @Query('dry_run') dryRun: string | undefined,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
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
        report: published.issues,
        compatibility: published.compatibility,
      };
    }
    reply.status(published.outcome === 'new' ? 201 : 200);
    return { outcome: published.outcome, version: presentVersion(published.version) };
  }
}
