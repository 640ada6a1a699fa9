import { Module } from '@nestjs/common';
import { SkillCatalog } from './skill-catalog.js';
import { SkillsRepository } from './skills.repository.js';

@Module({ providers: [SkillsRepository, SkillCatalog], exports: [SkillsRepository, SkillCatalog] })
export class CatalogModule {}
