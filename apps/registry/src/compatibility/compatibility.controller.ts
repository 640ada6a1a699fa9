import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CompatibilityQueries } from './compatibility-queries.js';
import { CHECK_BODY_SCHEMA, parseCheckBody, parseVersionQuery } from './compatibility.dto.js';

@ApiTags('compatibility')
@Controller('v1')
export class CompatibilityController {
  constructor(private readonly queries: CompatibilityQueries) {}

  @Post('compatibility')
  @HttpCode(200)
  @ApiOperation({ summary: 'Compare two JSON Schemas (2020-12): compatible, and every change with pointers and whether it breaks' })
  @ApiBody({ schema: CHECK_BODY_SCHEMA })
  check(@Body() body: unknown) {
    const parsed = parseCheckBody(body);
    return this.queries.check(parsed.old, parsed.new, parsed.direction);
  }

  @Get('skills/:name/compatibility')
  @ApiOperation({
    summary: "The compatibility report between two stored versions (inputs backward, outputs forward, under the newer one's policy)",
  })
  @ApiQuery({ name: 'from', required: true })
  @ApiQuery({ name: 'to', required: true })
  between(@Param('name') name: string, @Query() query: unknown) {
    const { from, to } = parseVersionQuery(query);
    return this.queries.between(name, from, to);
  }
}
