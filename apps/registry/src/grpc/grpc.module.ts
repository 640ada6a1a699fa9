import { Module } from '@nestjs/common';
import { GrpcEndpoint } from './grpc-endpoint.js';

/**
 * The gRPC transport's kit (proto/skill_registry.proto): the server (registry-grpc-server.ts, connected in
 * create-registry-app.ts as a hybrid application, so the features' modules and the global pipes and filters
 * serve it as they serve REST), the auth guard, the error mapping and the request fields. Each feature's
 * `<feature>.grpc-controller.ts` sits beside its REST controller and is registered by the feature's module.
 */
@Module({ providers: [GrpcEndpoint], exports: [GrpcEndpoint] })
export class GrpcModule {}
