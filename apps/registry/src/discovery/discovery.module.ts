import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { LifecycleModule } from '../lifecycle/lifecycle.module.js';
import { PackagesModule } from '../packages/packages.module.js';
import { DiscoveryService } from './discovery.service.js';

@Module({ imports: [CatalogModule, LifecycleModule, PackagesModule], providers: [DiscoveryService], exports: [DiscoveryService] })
export class DiscoveryModule {}
