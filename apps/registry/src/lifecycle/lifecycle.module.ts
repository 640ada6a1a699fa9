import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { ExecutionsModule } from '../executions/executions.module.js';
import { DeprecateSkill } from './deprecate-skill.js';
import { LifecycleEventsPublisher } from './lifecycle-events.publisher.js';
import { LifecycleService } from './lifecycle.service.js';
import { PromoteSkill } from './promote-skill.js';

@Module({
  imports: [CatalogModule, ExecutionsModule],
  providers: [LifecycleService, PromoteSkill, DeprecateSkill, LifecycleEventsPublisher],
  exports: [LifecycleService, PromoteSkill, DeprecateSkill, LifecycleEventsPublisher],
})
export class LifecycleModule {}
