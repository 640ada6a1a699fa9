import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { RegistrySkillSource } from './registry-skill-source.js';
import { McpPrompts } from './mcp-prompts.js';
import { McpSkillResources } from './mcp-skill-resources.js';

/**
 * The MCP Skills extension (SEP-2640): the catalog's packages as skills and skill:// resources; their instructions
 * and prompt templates as MCP prompts; their static resources (seed 004) as MCP resources.
 */
@Module({
  imports: [CatalogModule],
  providers: [RegistrySkillSource, McpPrompts, McpSkillResources],
  exports: [RegistrySkillSource, McpPrompts, McpSkillResources],
})
export class McpSkillsModule {}
