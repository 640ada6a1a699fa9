import { Controller, Delete, Get, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal } from '../auth/auth.guard.js';
import type { Principal } from '../auth/principal.js';
import { Forbidden } from '../auth/token-authenticator.js';
import { parseMcpEndpointQuery } from './mcp-endpoint.dto.js';
import { McpEndpoint } from './mcp-endpoint.js';

const DESCRIPTION =
  'MCP Streamable HTTP endpoint. Every ACTIVE/DEPRECATED skill is a tool, plus search_skills and get_skill_info. ' +
  'Query parameters fix, for the whole connection, which skills it shows: phase (skills usable at phase ≤ n), tag ' +
  '(repeatable, all must match), domain, agent. Same bearer tokens and rules as the REST reads.';

/**
 * Thin HTTP edge of the MCP endpoint: the global AuthGuard has authenticated the caller (401 problem
 * otherwise), the filter is parsed here (400 problem), then the MCP SDK's transports own the exchange.
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
    const filter = parseMcpEndpointQuery(query);
    assertSameOrigin(request);
    reply.hijack();
    await this.endpoint.handle(request.raw, reply.raw, request.body, { principal, filter });
  }
}

/**
 * MCP's guard against DNS rebinding: a browser page may only talk to the endpoint from the
 * endpoint's own origin. Non-browser clients send no Origin header.
 */
function assertSameOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let host: string | null = null;
  try {
    host = new URL(origin).host;
  } catch {
    /* not a URL: refused below */
  }
  if (host === null || host !== request.headers.host)
    throw new Forbidden(`Origin ${origin} may not use the MCP endpoint of ${request.headers.host}`);
}
