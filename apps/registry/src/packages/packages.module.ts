import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { DiscoveryModule } from '../discovery/discovery.module.js';
import { LifecycleModule } from '../lifecycle/lifecycle.module.js';
import { PackageStoreModule } from './package-store.module.js';
import { PackageContents } from './package-contents.js';
import { PackageFilesController } from './package-files.controller.js';
import { PackagesController } from './packages.controller.js';
import { SkillsModule } from '../skills/skills.module.js';
import { PublishPackage } from './publish-package.js';

/** Publishing packages over the API (POST /v1/packages) and serving stored ones back (GET …/files, …/package). */
@Module({
  imports: [CatalogModule, LifecycleModule, DiscoveryModule, PackageStoreModule, SkillsModule],
  controllers: [PackagesController, PackageFilesController],
  providers: [PublishPackage, PackageContents],
  exports: [PublishPackage, PackageContents],
})
export class PackagesModule {}
