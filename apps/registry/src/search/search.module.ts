import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { SearchController } from './search.controller.js';
import { SearchResponseCache } from './search-response-cache.js';
import { SkillSearchIndex } from './skill-search-index.js';

/** Ranked search; SkillSearchIndex is exported for the other transports (gRPC, MCP). */
@Module({
  imports: [CatalogModule],
  controllers: [SearchController],
  providers: [SkillSearchIndex, SearchResponseCache],
  exports: [SkillSearchIndex],
})
export class SearchModule {}
