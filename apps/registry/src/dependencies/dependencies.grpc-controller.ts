import { Controller, UseFilters, UseGuards } from '@nestjs/common';
import { GrpcMethod, Payload } from '@nestjs/microservices';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { GrpcAuthGuard } from '../grpc/grpc-auth.guard.js';
import { GrpcExceptionFilter } from '../grpc/grpc-exception.filter.js';
import { required } from '../grpc/grpc-fields.js';
import { GRPC_SERVICE } from '../grpc/registry-grpc-server.js';
import { dependentsView } from './dependents-view.js';

/** GET /v1/skills/{name}/dependents over gRPC. */
@Controller()
@UseGuards(GrpcAuthGuard)
@UseFilters(GrpcExceptionFilter)
export class DependenciesGrpcController {
  constructor(private readonly catalog: SkillCatalog) {}

  @GrpcMethod(GRPC_SERVICE, 'ListDependents')
  listDependents(@Payload() request: { name?: string }) {
    return dependentsView(required(request.name, 'name'), this.catalog);
  }
}
