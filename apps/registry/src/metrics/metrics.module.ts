import { Global, Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { AdapterToolsModule } from '../adapter-tools/adapter-tools.module.js';
import { MetricsController } from './metrics.controller.js';
import { RegistryMetrics } from './registry-metrics.js';

/** Prometheus metrics of the registry: GET /metrics, request metrics of every transport, catalog and tool gauges. */
@Global()
@Module({
  imports: [CatalogModule, AdapterToolsModule],
  controllers: [MetricsController],
  providers: [RegistryMetrics],
  exports: [RegistryMetrics],
})
export class MetricsModule {}
