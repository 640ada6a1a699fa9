import { GrpcMethod } from '@nestjs/microservices';
import { GRPC_SERVICE } from '../grpc/registry-grpc-server.js';
import { RegistryHealthReport } from './registry-health.js';
import { GrpcController } from '../grpc/grpc-controller.js';

/** GET /v1/health over gRPC. */
@GrpcController()
export class HealthGrpcController {
  constructor(private readonly health: RegistryHealthReport) {}

  @GrpcMethod(GRPC_SERVICE, 'GetHealth')
  getHealth() {
    return this.health.build();
  }
}
