import { Module } from '@nestjs/common';
import { TwinController } from './twin.controller.js';
import { TwinStoreModule } from './twin-store.module.js';

/** The digital twin feature: REST routes over the twin store. */
@Module({
  imports: [TwinStoreModule],
  controllers: [TwinController],
  exports: [TwinStoreModule],
})
export class TwinModule {}
