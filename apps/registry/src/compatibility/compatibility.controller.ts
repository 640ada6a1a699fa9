import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiJson, ApiProblems, ApiQueryParams } from '../openapi/api-decorators.js';
import { CompatibilityQueries } from './compatibility-queries.js';
import { CHECK_BODY_SCHEMA, parseCheckBody, parseVersionQuery, versionQuery } from './compatibility.dto.js';
import {
  type CompatibilityReportView,
  type VersionCompatibilityView,
  compatibilityReportView,
  versionCompatibilityView,
} from './compatibility.views.js';

@ApiTags('compatibility')
@Controller('v1')
export class CompatibilityController {
  constructor(private readonly queries: CompatibilityQueries) {}

  @Post('compatibility')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Compare two JSON Schemas: compatible, and every change with pointers and whether it breaks',
    description:
      'Each schema is read in the dialect its `$schema` names: draft-06, draft-07, 2019-09 or 2020-12 (the default when `$schema` is absent). ' +
      'A keyword the checker does not analyse (unevaluatedProperties, unevaluatedItems, $dynamicRef or $recursiveRef across resources) on the side that must accept is a breaking UNDECIDABLE_KEYWORD change, never "compatible". ' +
      'Another `$schema` (draft-04, unknown URIs) or a schema invalid in its dialect is 422 SCHEMA_INVALID.',
  })
  @ApiBody({ schema: CHECK_BODY_SCHEMA })
  @ApiJson(200, compatibilityReportView, { description: 'Whether `new` is compatible with `old` in `direction`, and every change' })
  @ApiProblems('SCHEMA_INVALID')
  check(@Body() body: unknown): CompatibilityReportView {
    const parsed = parseCheckBody(body);
    return this.queries.check(parsed.old, parsed.new, parsed.direction);
  }

  @Get('skills/:name/compatibility')
  @ApiOperation({
    summary: "The compatibility report between two stored versions (inputs backward, outputs forward, under the newer one's policy)",
  })
  @ApiQueryParams(versionQuery, { from: 'The older version (1.2.3)', to: 'The newer version' })
  @ApiJson(200, versionCompatibilityView, { description: 'The report between the two versions' })
  @ApiProblems('SKILL_NOT_FOUND')
  between(@Param('name') name: string, @Query() query: unknown): VersionCompatibilityView {
    const { from, to } = parseVersionQuery(query);
    return this.queries.between(name, from, to);
  }
}
