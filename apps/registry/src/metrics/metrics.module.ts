import { Global, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { CatalogModule } from '../catalog/catalog.module.js';
import { AdapterToolsModule } from '../adapter-tools/adapter-tools.module.js';
import { GrpcMetricsInterceptor } from './grpc-metrics.interceptor.js';
import { MetricsController } from './metrics.controller.js';
import { RegistryMetrics } from './registry-metrics.js';

/** Prometheus metrics of the registry: GET /metrics, request metrics of every transport, catalog and tool gauges. */
@Global()
@Module({
  imports: [CatalogModule, AdapterToolsModule],
  controllers: [MetricsController],
  providers: [RegistryMetrics, { provide: APP_INTERCEPTOR, useClass: GrpcMetricsInterceptor }],
  exports: [RegistryMetrics],
})
export class MetricsModule {}
