import { Controller, Delete, Get, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal } from '../auth/auth.guard.js';
import type { Principal } from '../auth/principal.js';
import { ApiJson, ApiQueryParams, headerRefs } from '../openapi/api-decorators.js';
import { componentRef } from '../openapi/openapi-components.js';
import { mcpEndpointQuery, parseMcpEndpointQuery } from './mcp-endpoint.dto.js';
import { jsonRpcBodyView, jsonRpcMessageView } from './mcp.views.js';
import { McpEndpoint } from './mcp-endpoint.js';
import { traceContextOf } from '../tracing/request-tracing.js';

const DESCRIPTION =
  'MCP Streamable HTTP endpoint. Every ACTIVE/DEPRECATED skill is a tool, plus search_skills and get_skill_info. ' +
  'Query parameters fix, for the whole connection, which skills it shows: phase (skills usable at phase ≤ n), tag ' +
  '(repeatable, all must match), domain, agent; and branch, the digital twin branch its tool calls work on (a call may name ' +
  'another in _meta["io.skill-registry/branch"]). Work products are resources twin://<branch>/<id>. ' +
  'Same bearer tokens and rules as the REST reads.';

const QUERY_DESCRIPTIONS = {
  phase: 'Only skills usable at this phase (phase ≤ n, 1–3)',
  tag: 'Repeatable; every tag must match',
  domain: 'Only skills of this engineering domain',
  agent: 'Only skills owned by this agent',
  branch: 'Digital twin branch the tool calls work on (default main)',
};

const SESSION_HEADER = ApiHeader({
  name: 'Mcp-Session-Id',
  required: false,
  description: 'The session (2025-era clients), as initialize answered it',
});

const jsonRpcError = (status: number, description: string) =>
  ApiJson(status, jsonRpcMessageView, { description: `${description} (a JSON-RPC error, the MCP SDK's answer)` });

const eventStream = (description: string) => ({
  type: 'string',
  description,
  'x-sse-data': componentRef(jsonRpcMessageView),
});

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
  @ApiQueryParams(mcpEndpointQuery, QUERY_DESCRIPTIONS)
  @SESSION_HEADER
  @ApiHeader({ name: 'MCP-Protocol-Version', required: false, description: 'The negotiated protocol revision, e.g. 2025-06-18' })
  @ApiBody({ schema: componentRef(jsonRpcBodyView) })
  @ApiResponse({
    status: 200,
    description: 'The JSON-RPC response(s): as JSON, or as a stream of Server-Sent Events (progress, log messages, then the result)',
    headers: headerRefs(['Mcp-Session-Id']),
    content: {
      'application/json': { schema: componentRef(jsonRpcBodyView) },
      'text/event-stream': { schema: eventStream('Server-Sent Events; the `data` of each `message` event is a JsonRpcMessage') },
    },
  })
  @ApiResponse({ status: 202, description: 'Accepted: the body held only notifications or responses; no body' })
  @jsonRpcError(400, 'Bad Request: no session for a request that needs one, malformed JSON (-32700) or params (-32602)')
  @jsonRpcError(404, 'Session not found: it ended or expired')
  @jsonRpcError(406, 'Not Acceptable: the client must accept application/json and text/event-stream')
  @jsonRpcError(415, 'Unsupported Media Type: the body must be application/json')
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
  @ApiQueryParams(mcpEndpointQuery, QUERY_DESCRIPTIONS)
  @SESSION_HEADER
  @ApiResponse({
    status: 200,
    description: "The session's notifications, as Server-Sent Events",
    content: { 'text/event-stream': { schema: eventStream('Server-Sent Events; the `data` of each is a JsonRpcMessage') } },
  })
  @jsonRpcError(400, 'Bad Request: no Mcp-Session-Id header')
  @jsonRpcError(404, 'Session not found: it ended or expired')
  @jsonRpcError(406, 'Not Acceptable: the client must accept text/event-stream')
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
  @ApiQueryParams(mcpEndpointQuery, QUERY_DESCRIPTIONS)
  @SESSION_HEADER
  @ApiResponse({ status: 200, description: 'The session ended; no body' })
  @jsonRpcError(400, 'Bad Request: no Mcp-Session-Id header')
  @jsonRpcError(404, 'Session not found: it ended or expired')
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
    await this.endpoint.handle(request.raw, reply.raw, request.body, {
      principal,
      filter,
      branch,
      traceContext: traceContextOf(request),
      address: request.ip,
    });
  }
}
