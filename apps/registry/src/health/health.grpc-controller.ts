import { Controller, UseFilters, UseGuards } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { GrpcAuthGuard } from '../grpc/grpc-auth.guard.js';
import { GrpcExceptionFilter } from '../grpc/grpc-exception.filter.js';
import { GRPC_SERVICE } from '../grpc/registry-grpc-server.js';
import { RegistryHealthReport } from './registry-health.js';

/** GET /v1/health over gRPC. */
@Controller()
@UseGuards(GrpcAuthGuard)
@UseFilters(GrpcExceptionFilter)
export class HealthGrpcController {
  constructor(private readonly health: RegistryHealthReport) {}

  @GrpcMethod(GRPC_SERVICE, 'GetHealth')
  getHealth() {
    return this.health.build();
  }
}
