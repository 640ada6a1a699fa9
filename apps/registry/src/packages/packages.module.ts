import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { DiscoveryModule } from '../discovery/discovery.module.js';
import { LifecycleModule } from '../lifecycle/lifecycle.module.js';
import { PackageStoreModule } from './package-store.module.js';
import { PackagesController } from './packages.controller.js';
import { PublishPackage } from './publish-package.js';

/** Publishing packages over the API (POST /v1/packages). */
@Module({
  imports: [CatalogModule, LifecycleModule, DiscoveryModule, PackageStoreModule],
  controllers: [PackagesController],
  providers: [PublishPackage],
})
export class PackagesModule {}
