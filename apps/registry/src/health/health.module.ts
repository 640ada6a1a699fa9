import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { CatalogModule } from '../catalog/catalog.module.js';
import { HealthController } from './health.controller.js';
import { RegistryHealthReport } from './registry-health.js';

@Module({ imports: [TerminusModule, CatalogModule], controllers: [HealthController], providers: [RegistryHealthReport] })
export class HealthModule {}
