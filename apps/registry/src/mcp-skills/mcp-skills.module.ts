import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { RegistrySkillSource } from './registry-skill-source.js';
import { McpPrompts } from './mcp-prompts.js';

/** The MCP Skills extension (SEP-2640): the catalog's packages as skills and skill:// resources. */
@Module({
  imports: [CatalogModule],
  providers: [RegistrySkillSource, McpPrompts],
  exports: [RegistrySkillSource, McpPrompts],
})
export class McpSkillsModule {}
