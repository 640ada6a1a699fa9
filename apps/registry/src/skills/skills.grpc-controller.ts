import { GrpcController } from '../grpc/grpc-controller.js';
import { GrpcMethod, Payload } from '@nestjs/microservices';
import { required } from '../grpc/grpc-fields.js';
import { GRPC_SERVICE } from '../grpc/registry-grpc-server.js';
import { SkillQueries } from './skill-queries.js';
import {
  type ListSkillsRequest,
  lifecycleEventMessage,
  parseListSkills,
  skillSummaryMessage,
  skillVersionMessage,
  versionSummaries,
  withDeprecationTrailers,
} from './skills.grpc-messages.js';

/** Catalog reads over gRPC: the use-cases behind GET /v1/skills, /v1/skills/{name}, …/versions and …/history. */
@GrpcController()
export class SkillsGrpcController {
  constructor(private readonly queries: SkillQueries) {}

  @GrpcMethod(GRPC_SERVICE, 'ListSkills')
  listSkills(@Payload() request: ListSkillsRequest) {
    const page = this.queries.list(parseListSkills(request));
    return { items: page.items.map(({ skill, current }) => skillSummaryMessage(skill, current)), next_cursor: page.nextCursor ?? '' };
  }

  @GrpcMethod(GRPC_SERVICE, 'GetSkill')
  getSkill(@Payload() request: { name?: string; version?: string }) {
    const { skill, version } = this.queries.getAt(required(request.name, 'name'), request.version || undefined);
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
}
