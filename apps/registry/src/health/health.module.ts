import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { CatalogModule } from '../catalog/catalog.module.js';
import { VersionsModule } from '../versions/versions.module.js';
import { HealthController } from './health.controller.js';
import { RegistryHealthReport } from './registry-health.js';
import { DatabaseReadiness } from './database-readiness.js';
import { RegistryReadiness } from './registry-readiness.js';
import { HealthGrpcController } from './health.grpc-controller.js';

@Module({
  imports: [TerminusModule, CatalogModule, VersionsModule],
  controllers: [HealthController, HealthGrpcController],
  providers: [RegistryHealthReport, DatabaseReadiness, RegistryReadiness],
})
export class HealthModule {}
