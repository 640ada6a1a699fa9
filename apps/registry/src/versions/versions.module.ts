import { Module } from '@nestjs/common';
import { AdapterToolsModule } from '../adapter-tools/adapter-tools.module.js';
import { CatalogModule } from '../catalog/catalog.module.js';
import { ExecutionsModule } from '../executions/executions.module.js';
import { ExampleTwinSeeder } from '../twin/example-twin-seeder.js';
import { AdminController } from './admin.controller.js';
import { AdoptLegacyPackages } from './adopt-legacy-packages.js';
import { DeprecateSkill } from './deprecate-skill.js';
import { DiscoveryService } from './discovery.service.js';
import { LifecycleEventsPublisher } from './lifecycle-events.publisher.js';
import { PackageInspection } from './package-inspection.js';
import { PackageIntake } from './package-intake.js';
import { PromoteSkill } from './promote-skill.js';
import { PublishController } from './publish.controller.js';
import { PublishPackage } from './publish-package.js';
import { RegisterSkill } from './register-skill.js';
import { SkillWatcher } from './skill-watcher.js';
import { VersionRecorder } from './version-recorder.js';
import { AdminGrpcController } from './admin.grpc-controller.js';

/**
 * The write side of skill versions: packages found on disk (discovery, the watcher), published over the
 * API (POST /v1/packages) and moved through the lifecycle (the admin routes), all recorded by the
 * VersionRecorder.
 */
@Module({
  imports: [CatalogModule, ExecutionsModule, AdapterToolsModule],
  controllers: [AdminController, PublishController, AdminGrpcController],
  providers: [
    VersionRecorder,
    LifecycleEventsPublisher,
    PackageInspection,
    PackageIntake,
    RegisterSkill,
    DiscoveryService,
    SkillWatcher,
    AdoptLegacyPackages,
    PublishPackage,
    PromoteSkill,
    DeprecateSkill,
    ExampleTwinSeeder,
  ],
  exports: [DiscoveryService, SkillWatcher, PublishPackage, PromoteSkill, DeprecateSkill, AdoptLegacyPackages],
})
export class VersionsModule {}
