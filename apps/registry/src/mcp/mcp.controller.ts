import { Controller, Delete, Get, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal } from '../auth/auth.guard.js';
import type { Principal } from '../auth/principal.js';
import { parseMcpEndpointQuery } from './mcp-endpoint.dto.js';
import { McpEndpoint } from './mcp-endpoint.js';
import { traceContextOf } from '../tracing/request-tracing.js';

const DESCRIPTION =
  'MCP Streamable HTTP endpoint. Every ACTIVE/DEPRECATED skill is a tool, plus search_skills and get_skill_info. ' +
  'Query parameters fix, for the whole connection, which skills it shows: phase (skills usable at phase ≤ n), tag ' +
  '(repeatable, all must match), domain, agent; and branch, the digital twin branch its tool calls work on (a call may name ' +
  'another in _meta["io.skill-registry/branch"]). Work products are resources twin://<branch>/<id>. ' +
  'Same bearer tokens and rules as the REST reads.';

/**
 * Thin HTTP edge of the MCP endpoint: Host and Origin were checked (http-edge/host-guard.ts), the
 * global AuthGuard has authenticated the caller (401 problem otherwise), the filter is parsed here
 * (400 problem), then the MCP SDK's transports own the exchange.
 */
@ApiTags('mcp')
@Controller('mcp')
export class McpController {
  constructor(private readonly endpoint: McpEndpoint) {}

  @Post()
  @ApiOperation({ summary: 'MCP messages (JSON-RPC); initialize opens a session', description: DESCRIPTION })
  @ApiQuery({ name: 'phase', required: false, type: Number })
  @ApiQuery({ name: 'tag', required: false, type: [String] })
  @ApiQuery({ name: 'domain', required: false })
  @ApiQuery({ name: 'agent', required: false })
  @ApiQuery({ name: 'branch', required: false, description: 'Digital twin branch the tool calls work on (default main)' })
  post(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Query() query: Record<string, unknown>,
    @CurrentPrincipal() principal: Principal,
  ) {
    return this.serve(request, reply, query, principal);
  }

  @Get()
  @ApiOperation({ summary: "A session's server-to-client stream (Server-Sent Events: notifications/tools/list_changed)" })
  stream(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Query() query: Record<string, unknown>,
    @CurrentPrincipal() principal: Principal,
  ) {
    return this.serve(request, reply, query, principal);
  }

  @Delete()
  @ApiOperation({ summary: 'Ends a session (Mcp-Session-Id header)' })
  end(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Query() query: Record<string, unknown>,
    @CurrentPrincipal() principal: Principal,
  ) {
    return this.serve(request, reply, query, principal);
  }

  private async serve(request: FastifyRequest, reply: FastifyReply, query: Record<string, unknown>, principal: Principal): Promise<void> {
    const { filter, branch } = parseMcpEndpointQuery(query);
    reply.hijack();
    await this.endpoint.handle(request.raw, reply.raw, request.body, { principal, filter, branch, traceContext: traceContextOf(request) });
  }
}
