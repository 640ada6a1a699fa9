import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { LifecycleModule } from '../lifecycle/lifecycle.module.js';
import { PackageStoreModule } from '../packages/package-store.module.js';
import { DiscoveryService } from './discovery.service.js';
import { PackageIntake } from './package-intake.js';
import { RegisterSkill } from './register-skill.js';
import { SkillWatcher } from './skill-watcher.js';

@Module({
  imports: [CatalogModule, LifecycleModule, PackageStoreModule],
  providers: [DiscoveryService, RegisterSkill, PackageIntake, SkillWatcher],
  exports: [DiscoveryService, PackageIntake, SkillWatcher],
})
export class DiscoveryModule {}
