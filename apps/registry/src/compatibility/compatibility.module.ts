import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { CompatibilityQueries } from './compatibility-queries.js';
import { CompatibilityController } from './compatibility.controller.js';

/** Schema compatibility between versions: the checker over HTTP and gRPC (registration applies it in the intake). */
@Module({
  imports: [CatalogModule],
  controllers: [CompatibilityController],
  providers: [CompatibilityQueries],
  exports: [CompatibilityQueries],
})
export class CompatibilityModule {}
