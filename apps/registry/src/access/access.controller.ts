import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/auth.guard.js';
import type { Principal } from '../auth/principal.js';
import { ApiJson, ApiQueryParams } from '../openapi/api-decorators.js';
import { parseOrThrow } from '../validation.js';
import { accessQuery } from './access.dto.js';
import { type AccessView, accessView } from './access.views.js';
import { DescribeAccess } from './describe-access.js';

@ApiTags('access')
@Controller('v1/access')
export class AccessController {
  constructor(private readonly describeAccess: DescribeAccess) {}

  @Get()
  @ApiOperation({
    summary: "What the caller's token may do",
    description:
      "The identity and role of the bearer token (or `anonymous`), a publisher's scopes, and what it may do; with `skill`, " +
      'whether it may publish and deprecate that name. For clients that show only the allowed actions: every call is still decided by the server.',
  })
  @ApiQueryParams(accessQuery, { skill: 'A skill name: answer whether the token may publish and deprecate it' })
  @ApiJson(200, accessView, { description: "The token's access" })
  access(@CurrentPrincipal() principal: Principal, @Query() query: unknown): AccessView {
    return this.describeAccess.run(principal, parseOrThrow(accessQuery, query, 'query').skill);
  }
}
