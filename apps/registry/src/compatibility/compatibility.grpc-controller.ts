import { GrpcMethod, Payload } from '@nestjs/microservices';
import { required } from '../grpc/grpc-fields.js';
import { type ProtoValue, fromValue } from '../grpc/proto-values.js';
import { GRPC_SERVICE } from '../grpc/registry-grpc-server.js';
import { CompatibilityQueries } from './compatibility-queries.js';
import { parseCheckBody, parseVersionQuery } from './compatibility.dto.js';
import { GrpcController } from '../grpc/grpc-controller.js';

/** Schema compatibility over gRPC: POST /v1/compatibility/check and GET /v1/skills/{name}/compatibility. */
@GrpcController()
export class CompatibilityGrpcController {
  constructor(private readonly compatibility: CompatibilityQueries) {}

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
}
