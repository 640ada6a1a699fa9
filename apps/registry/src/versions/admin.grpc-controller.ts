import { GrpcMethod, Payload } from '@nestjs/microservices';
import type { Principal } from '../auth/principal.js';
import { Readable } from 'node:stream';
import type { z } from 'zod';
import { DiscoveryService } from './discovery.service.js';
import { PublishPackage } from './publish-package.js';
import { deprecateSkillBody, parseAdminBody, promoteSkillBody, registerSkillBody } from './admin.dto.js';
import { DeprecateSkill } from './deprecate-skill.js';
import { PromoteSkill } from './promote-skill.js';
import { GrpcAdminOnly, GrpcCaller, GrpcPublisherOrAdmin } from '../grpc/grpc-auth.guard.js';
import { skillVersionMessage, withDeprecationTrailers } from '../skills/skills.grpc-messages.js';
import { required } from '../grpc/grpc-fields.js';
import { type ProtoTimestamp, fromTimestamp } from '../grpc/proto-values.js';
import { GRPC_SERVICE } from '../grpc/registry-grpc-server.js';
import { GrpcController } from '../grpc/grpc-controller.js';

/** Administration over gRPC (admin tokens; publishing and deprecation also publishers): the use-cases behind /v1/admin and /v1/packages. */
@GrpcController()
@GrpcAdminOnly()
export class AdminGrpcController {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly promoteSkill: PromoteSkill,
    private readonly deprecateSkill: DeprecateSkill,
    private readonly publishPackage: PublishPackage,
  ) {}

  @GrpcMethod(GRPC_SERVICE, 'PublishPackage')
  @GrpcPublisherOrAdmin()
  async publish(@Payload() request: { archive?: Buffer; dry_run?: boolean }, @GrpcCaller() principal: Principal) {
    const archive = request.archive ?? Buffer.alloc(0);
    const published = await this.publishPackage.execute(Readable.from([archive]), principal, request.dry_run === true);
    if (published.outcome === 'valid') {
      return { outcome: 'valid', content_hash: published.contentHash, compatibility: published.compatibility ?? undefined };
    }
    return { outcome: published.outcome, version: skillVersionMessage(published.version), content_hash: published.version.contentHash };
  }

  @GrpcMethod(GRPC_SERVICE, 'Discover')
  discover(@GrpcCaller() principal: Principal) {
    return this.discovery.discover(principal.identity);
  }

  @GrpcMethod(GRPC_SERVICE, 'RegisterSkill')
  async registerSkill(@Payload() request: { path?: string }, @GrpcCaller() principal: Principal) {
    const body = this.body(registerSkillBody, { path: request.path ?? '' });
    const { report, version } = await this.discovery.register(body.path, principal.identity);
    return { outcome: report.outcome, message: report.message ?? undefined, version: version ? skillVersionMessage(version) : undefined };
  }

  @GrpcMethod(GRPC_SERVICE, 'PromoteSkill')
  async promote(
    @Payload() request: { name?: string; version?: string; reason?: string; force?: boolean },
    @GrpcCaller() principal: Principal,
  ) {
    const name = required(request.name, 'name');
    const version = required(request.version, 'version');
    const body = this.body(promoteSkillBody, { reason: request.reason || undefined, force: request.force ?? false });
    return skillVersionMessage(
      await this.promoteSkill.execute({ name, version, actor: principal.identity, reason: body.reason, force: body.force }),
    );
  }

  @GrpcMethod(GRPC_SERVICE, 'DeprecateSkill')
  @GrpcPublisherOrAdmin()
  async deprecate(
    @Payload()
    request: { name?: string; reason?: string; version?: string; successor?: string; sunset?: ProtoTimestamp | null; force?: boolean },
    @GrpcCaller() principal: Principal,
  ) {
    const name = required(request.name, 'name');
    const body = this.body(deprecateSkillBody, {
      reason: request.reason ?? '',
      version: request.version || undefined,
      successor: request.successor || undefined,
      sunset: fromTimestamp(request.sunset, 'sunset')?.toISOString(),
      force: request.force || undefined,
    });
    const versions = await this.deprecateSkill.execute({
      name,
      by: principal,
      reason: body.reason,
      version: body.version,
      successor: body.successor,
      sunset: body.sunset ? new Date(body.sunset) : undefined,
      force: body.force,
    });
    return withDeprecationTrailers({ items: versions.map(skillVersionMessage) }, versions);
  }

  /** The REST bodies' rules (admin.dto.ts) check the same fields here; a field the request left unset is absent. */
  private body<T extends z.ZodType>(schema: T, raw: Record<string, unknown>): z.output<T> {
    return parseAdminBody(schema, Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined)));
  }
}
