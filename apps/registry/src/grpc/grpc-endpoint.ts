import { Injectable } from '@nestjs/common';

/** Where this registry's gRPC server listens, once it has started (GRPC_PORT=0 picks the port). */
@Injectable()
export class GrpcEndpoint {
  port: number | null = null;
}
