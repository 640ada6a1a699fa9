import { Module } from '@nestjs/common';
import { AdapterToolsModule } from '../adapter-tools/adapter-tools.module.js';
import { CatalogModule } from '../catalog/catalog.module.js';
import { CatalogFacets } from './catalog-facets.js';
import { FacetsController } from './facets.controller.js';
import { SearchController } from './search.controller.js';
import { SearchReads } from './search-reads.js';
import { SearchResponseCache } from './search-response-cache.js';
import { SkillSearchIndex } from './skill-search-index.js';
import { SearchGrpcController } from './search.grpc-controller.js';

/** Ranked search and the catalog's facets; SkillSearchIndex is exported for the other transports (gRPC, MCP), SearchReads for the read fast path. */
@Module({
  imports: [CatalogModule, AdapterToolsModule],
  controllers: [SearchController, FacetsController, SearchGrpcController],
  providers: [SkillSearchIndex, SearchResponseCache, SearchReads, CatalogFacets],
  exports: [SkillSearchIndex, SearchReads],
})
export class SearchModule {}
