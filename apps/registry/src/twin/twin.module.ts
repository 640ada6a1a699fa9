import { Module } from '@nestjs/common';
import { ExecutionsModule } from '../executions/executions.module.js';
import { ExecutionTwinController } from './execution-twin.controller.js';
import { TwinController } from './twin.controller.js';
import { TwinGrpcController } from './twin.grpc-controller.js';
import { TwinUseCases } from './twin-use-cases.js';

/** The digital twin feature: REST routes over the twin store. */
@Module({
  imports: [ExecutionsModule],
  controllers: [TwinController, ExecutionTwinController, TwinGrpcController],
  providers: [TwinUseCases],
})
export class TwinModule {}
