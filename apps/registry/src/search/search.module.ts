import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { SearchController } from './search.controller.js';
import { SearchReads } from './search-reads.js';
import { SearchResponseCache } from './search-response-cache.js';
import { SkillSearchIndex } from './skill-search-index.js';
import { SearchGrpcController } from './search.grpc-controller.js';

/** Ranked search; SkillSearchIndex is exported for the other transports (gRPC, MCP), SearchReads for the read fast path. */
@Module({
  imports: [CatalogModule],
  controllers: [SearchController, SearchGrpcController],
  providers: [SkillSearchIndex, SearchResponseCache, SearchReads],
  exports: [SkillSearchIndex, SearchReads],
})
export class SearchModule {}
