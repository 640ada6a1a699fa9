import { Module } from '@nestjs/common';
import { DiscoveryModule } from '../discovery/discovery.module.js';
import { AdminController } from './admin.controller.js';
import { LifecycleModule } from './lifecycle.module.js';

@Module({ imports: [LifecycleModule, DiscoveryModule], controllers: [AdminController] })
export class AdminModule {}
