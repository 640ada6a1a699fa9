import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { RequestInvalid } from '../problem/domain-errors.js';
import { AdapterToolDirectory } from './adapter-tool-directory.js';
import { ApiJson, ApiQueryParams } from '../openapi/api-decorators.js';
import { type AdapterToolListView, adapterToolListView, presentAdapterTools } from './adapter-tools.views.js';

/** Query of GET /v1/tools. */
const toolsQuery = z.object({ capability: z.string().min(1).max(100).optional() }).strict();

@ApiTags('tools')
@Controller('v1/tools')
export class AdapterToolsController {
  constructor(private readonly directory: AdapterToolDirectory) {}

  @Get()
  @ApiOperation({ summary: 'Every tool of the configured adapters: availability, capability and schemas' })
  @ApiQueryParams(toolsQuery, { capability: 'Only tools declaring this capability' })
  @ApiJson(200, adapterToolListView, { description: 'The tools, and the reachability of each adapter' })
  async list(@Query() rawQuery: Record<string, unknown>): Promise<AdapterToolListView> {
    const parsed = toolsQuery.safeParse(rawQuery ?? {});
    if (!parsed.success) {
      throw new RequestInvalid(
        'Query is invalid',
        parsed.error.issues.map((issue) => ({ field: issue.path.join('.') || 'query', message: issue.message })),
      );
    }
    return presentAdapterTools(await this.directory.list(parsed.data.capability));
  }
}
