import { Controller, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { ApiJson, ApiProblems } from '../openapi/api-decorators.js';
import { dependentsView } from './dependents-view.js';
import { type DependentsView, dependentsListView } from './dependents.views.js';

@ApiTags('skills')
@Controller('v1/skills')
export class DependenciesController {
  constructor(private readonly catalog: SkillCatalog) {}

  @Get(':name/dependents')
  @ApiOperation({ summary: 'Versions of other skills that depend on this one, with their ranges and the versions that satisfy them' })
  @ApiJson(200, dependentsListView, { description: 'The dependents, with the versions of this skill in their ranges' })
  @ApiProblems('SKILL_NOT_FOUND')
  dependents(@Param('name') name: string): DependentsView {
    return dependentsView(name, this.catalog);
  }
}
