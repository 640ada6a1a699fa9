import { Controller, UseFilters, UseGuards } from '@nestjs/common';
import { GrpcMethod, Payload } from '@nestjs/microservices';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { PackageContents } from '../packages/package-contents.js';
import { CompatibilityQueries } from '../compatibility/compatibility-queries.js';
import { parseCheckBody, parseVersionQuery } from '../compatibility/compatibility.dto.js';
import { type ProtoValue, fromValue } from './proto-values.js';
import { dependentsView } from '../dependencies/dependents-view.js';
import { RegistryHealthReport } from '../health/registry-health.js';
import { SkillSearchIndex } from '../search/skill-search-index.js';
import { SkillQueries } from '../skills/skill-queries.js';
import { GrpcAuthGuard } from './grpc-auth.guard.js';
import { GrpcExceptionFilter } from './grpc-exception.filter.js';
import { lifecycleEventMessage, searchHitMessage, skillSummaryMessage, skillVersionMessage, versionSummaries } from './grpc-messages.js';
import { type ListSkillsRequest, type SearchSkillsRequest, parseListSkills, parseSearchSkills, required } from './grpc-requests.js';
import { GRPC_SERVICE, withDeprecationTrailers } from './registry-grpc-server.js';

/** Catalog reads over gRPC: the use-cases behind GET /v1/skills..., /v1/health and /v1/search. */
@Controller()
@UseGuards(GrpcAuthGuard)
@UseFilters(GrpcExceptionFilter)
export class SkillsGrpcController {
  constructor(
    private readonly queries: SkillQueries,
    private readonly search: SkillSearchIndex,
    private readonly health: RegistryHealthReport,
    private readonly catalog: SkillCatalog,
    private readonly compatibility: CompatibilityQueries,
    private readonly contents: PackageContents,
  ) {}

  @GrpcMethod(GRPC_SERVICE, 'ListSkills')
  listSkills(@Payload() request: ListSkillsRequest) {
    const page = this.queries.list(parseListSkills(request));
    return { items: page.items.map(({ skill, current }) => skillSummaryMessage(skill, current)), next_cursor: page.nextCursor ?? '' };
  }

  @GrpcMethod(GRPC_SERVICE, 'GetSkill')
  getSkill(@Payload() request: { name?: string; version?: string }) {
    const name = required(request.name, 'name');
    const { skill, current } = this.queries.get(name);
    const version = request.version ? this.queries.version(name, request.version) : current;
    return withDeprecationTrailers({ skill: skillVersionMessage(version), versions: versionSummaries(skill) }, [version]);
  }

  @GrpcMethod(GRPC_SERVICE, 'ListVersions')
  listVersions(@Payload() request: { name?: string }) {
    return { items: this.queries.versions(required(request.name, 'name')).map(skillVersionMessage) };
  }

  @GrpcMethod(GRPC_SERVICE, 'GetHistory')
  async getHistory(@Payload() request: { name?: string }) {
    return { items: (await this.queries.history(required(request.name, 'name'))).map(lifecycleEventMessage) };
  }

  @GrpcMethod(GRPC_SERVICE, 'ListDependents')
  listDependents(@Payload() request: { name?: string }) {
    return dependentsView(required(request.name, 'name'), this.catalog);
  }

  @GrpcMethod(GRPC_SERVICE, 'ListPackageFiles')
  async listPackageFiles(@Payload() request: { name?: string; version?: string }) {
    const name = required(request.name, 'name');
    const version = required(request.version, 'version');
    const { contentHash, files } = await this.contents.files(name, version);
    return { name, version, content_hash: contentHash, files };
  }

  @GrpcMethod(GRPC_SERVICE, 'GetPackageFile')
  async getPackageFile(@Payload() request: { name?: string; version?: string; path?: string }) {
    const { entry, bytes, mediaType } = await this.contents.file(
      required(request.name, 'name'),
      required(request.version, 'version'),
      required(request.path, 'path'),
    );
    return { path: entry.path, size: entry.size, sha256: entry.sha256, media_type: mediaType, content: bytes };
  }

  @GrpcMethod(GRPC_SERVICE, 'CheckCompatibility')
  checkCompatibility(@Payload() request: { old?: ProtoValue | null; new?: ProtoValue | null; direction?: string }) {
    const body = parseCheckBody({
      old: request.old ? fromValue(request.old) : undefined,
      new: request.new ? fromValue(request.new) : undefined,
      ...(request.direction ? { direction: request.direction } : {}),
    });
    return this.compatibility.check(body.old, body.new, body.direction);
  }

  @GrpcMethod(GRPC_SERVICE, 'GetCompatibility')
  getCompatibility(@Payload() request: { name?: string; from?: string; to?: string }) {
    const { from, to } = parseVersionQuery({ from: request.from ?? '', to: request.to ?? '' });
    return this.compatibility.between(required(request.name, 'name'), from, to);
  }

  @GrpcMethod(GRPC_SERVICE, 'GetHealth')
  getHealth() {
    return this.health.build();
  }

  @GrpcMethod(GRPC_SERVICE, 'SearchSkills')
  searchSkills(@Payload() request: SearchSkillsRequest) {
    const { hits, total } = this.search.search(parseSearchSkills(request));
    return { items: hits.map(searchHitMessage), total };
  }
}
