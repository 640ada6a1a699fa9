import { PackagesModule } from '../packages/packages.module.js';
import { Module } from '@nestjs/common';
import { CompatibilityModule } from '../compatibility/compatibility.module.js';
import { CatalogModule } from '../catalog/catalog.module.js';
import { ExecutionsModule } from '../executions/executions.module.js';
import { RegistryHealthReport } from '../health/registry-health.js';
import { SearchModule } from '../search/search.module.js';
import { SkillsModule } from '../skills/skills.module.js';
import { VersionsModule } from '../versions/versions.module.js';
import { AdminGrpcController } from './admin.grpc-controller.js';
import { ExecutionsGrpcController } from './executions.grpc-controller.js';
import { GrpcEndpoint } from './grpc-endpoint.js';
import { SkillsGrpcController } from './skills.grpc-controller.js';
import { TwinGrpcController } from './twin.grpc-controller.js';

/**
 * The gRPC transport (proto/skill_registry.proto): thin controllers over the same use-cases as REST.
 * The server itself is connected in create-registry-app.ts (hybrid application).
 */
@Module({
  imports: [CatalogModule, SkillsModule, SearchModule, VersionsModule, ExecutionsModule, PackagesModule, CompatibilityModule],
  controllers: [SkillsGrpcController, AdminGrpcController, ExecutionsGrpcController, TwinGrpcController],
  // RegistryHealthReport is stateless (it reads the catalog and discovery's last report), so this module builds its own.
  providers: [RegistryHealthReport, GrpcEndpoint],
  exports: [GrpcEndpoint],
})
export class GrpcModule {}
