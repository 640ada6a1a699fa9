import { Controller, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { dependentsView } from './dependents-view.js';

@ApiTags('skills')
@Controller('v1/skills')
export class DependenciesController {
  constructor(private readonly catalog: SkillCatalog) {}

  @Get(':name/dependents')
  @ApiOperation({ summary: 'Versions of other skills that depend on this one, with their ranges and the versions that satisfy them' })
  dependents(@Param('name') name: string) {
    return dependentsView(name, this.catalog);
  }
}
