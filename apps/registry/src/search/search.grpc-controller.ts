import { GrpcMethod, Payload } from '@nestjs/microservices';
import { GRPC_SERVICE } from '../grpc/registry-grpc-server.js';
import { type SearchSkillsRequest, parseSearchSkills, searchHitMessage } from './search.grpc-messages.js';
import { SkillSearchIndex } from './skill-search-index.js';
import { GrpcController } from '../grpc/grpc-controller.js';

/** GET /v1/search over gRPC. */
@GrpcController()
export class SearchGrpcController {
  constructor(private readonly search: SkillSearchIndex) {}

  @GrpcMethod(GRPC_SERVICE, 'SearchSkills')
  searchSkills(@Payload() request: SearchSkillsRequest) {
    const { hits, total } = this.search.search(parseSearchSkills(request));
    return { items: hits.map(searchHitMessage), total };
  }
}
