import { Module } from '@nestjs/common';
import { ExecutionsModule } from '../executions/executions.module.js';
import { ExecutionTwinController } from './execution-twin.controller.js';
import { TwinController } from './twin.controller.js';
import { TwinStoreModule } from './twin-store.module.js';

/** The digital twin feature: REST routes over the twin store. */
@Module({
  imports: [TwinStoreModule, ExecutionsModule],
  controllers: [TwinController, ExecutionTwinController],
  exports: [TwinStoreModule],
})
export class TwinModule {}
