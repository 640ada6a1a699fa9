import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { ExecutionsModule } from '../executions/executions.module.js';
import { DeprecateSkill } from './deprecate-skill.js';
import { LifecycleEventsPublisher } from './lifecycle-events.publisher.js';
import { LifecycleService } from './lifecycle.service.js';
import { PromoteSkill } from './promote-skill.js';
import { PackageStoreModule } from '../packages/package-store.module.js';
import { ExampleTwinSeeder } from '../twin/example-twin-seeder.js';
import { TwinStoreModule } from '../twin/twin-store.module.js';

@Module({
  imports: [CatalogModule, ExecutionsModule, TwinStoreModule, PackageStoreModule],
  providers: [LifecycleService, PromoteSkill, ExampleTwinSeeder, DeprecateSkill, LifecycleEventsPublisher],
  exports: [LifecycleService, PromoteSkill, DeprecateSkill, LifecycleEventsPublisher],
})
export class LifecycleModule {}
