import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { ExecutionsModule } from '../executions/executions.module.js';
import { DeprecateSkill } from './deprecate-skill.js';
import { LifecycleService } from './lifecycle.service.js';
import { PromoteSkill } from './promote-skill.js';

@Module({
  imports: [CatalogModule, ExecutionsModule],
  providers: [LifecycleService, PromoteSkill, DeprecateSkill],
  exports: [LifecycleService, PromoteSkill, DeprecateSkill],
})
export class LifecycleModule {}
