import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { DependenciesController } from './dependencies.controller.js';
import { DependenciesGrpcController } from './dependencies.grpc-controller.js';

/** Dependencies between skills: declared in definition.json, checked at registration, promotion and deprecation. */
@Module({ imports: [CatalogModule], controllers: [DependenciesController, DependenciesGrpcController] })
export class DependenciesModule {}
