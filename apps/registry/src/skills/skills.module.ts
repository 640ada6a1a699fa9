import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { SkillsController } from './skills.controller.js';

@Module({ imports: [CatalogModule], controllers: [SkillsController] })
export class SkillsModule {}
