import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { AdapterToolsModule } from '../adapter-tools/adapter-tools.module.js';
import { SkillJsonCache } from './skill-json-cache.js';
import { SkillQueries } from './skill-queries.js';
import { SkillReads } from './skill-reads.js';
import { SkillsController } from './skills.controller.js';
import { SkillsGrpcController } from './skills.grpc-controller.js';

@Module({
  imports: [CatalogModule, AdapterToolsModule],
  controllers: [SkillsController, SkillsGrpcController],
  providers: [SkillJsonCache, SkillQueries, SkillReads],
  exports: [SkillQueries, SkillReads],
})
export class SkillsModule {}
