import { GrpcMethod, Payload } from '@nestjs/microservices';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { required } from '../grpc/grpc-fields.js';
import { GRPC_SERVICE } from '../grpc/registry-grpc-server.js';
import { dependentsView } from './dependents-view.js';
import { GrpcController } from '../grpc/grpc-controller.js';

/** GET /v1/skills/{name}/dependents over gRPC. */
@GrpcController()
export class DependenciesGrpcController {
  constructor(private readonly catalog: SkillCatalog) {}

  @GrpcMethod(GRPC_SERVICE, 'ListDependents')
  listDependents(@Payload() request: { name?: string }) {
    return dependentsView(required(request.name, 'name'), this.catalog);
  }
}
