import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { ExposedSkills } from './exposed-skills.js';
import { ListToolDefinitions } from './list-tool-definitions.js';
import { ToolDefinitionsController } from './tool-definitions.controller.js';

/** Tool definitions for agent frameworks; ExposedSkills is shared with the MCP endpoint so both expose the same skills. */
@Module({
  imports: [CatalogModule],
  controllers: [ToolDefinitionsController],
  providers: [ExposedSkills, ListToolDefinitions],
  exports: [ExposedSkills],
})
export class ToolDefinitionsModule {}
