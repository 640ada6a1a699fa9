import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiJson, ApiNotModified, ApiProblems } from '../openapi/api-decorators.js';
import { AgentCardReads } from './agent-card-reads.js';
import { agentCardView } from './agents.views.js';

/**
 * A2A v1.0 agent cards (issue 26 §3): the registry's at the well-known path (A2A §8.2), each agent's under /v1/agents.
 * Both carry an ETag of their content and Cache-Control (A2A §8.6), and answer 304 to a current copy.
 */
@ApiTags('agents')
@Controller()
export class AgentsController {
  constructor(private readonly reads: AgentCardReads) {}

  @Get('.well-known/agent-card.json')
  @ApiOperation({ summary: "The registry's A2A agent card: one A2A skill per agent, MCP and REST as its interfaces" })
  @ApiJson(200, agentCardView, { description: 'The agent card', headers: ['ETag', 'Cache-Control'] })
  @ApiNotModified()
  registry(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    return this.reads.registry(request, reply);
  }

  @Get('v1/agents/:agent/card')
  @ApiOperation({ summary: "An agent's A2A card: its ACTIVE skills, the MCP endpoint filtered to them (?agent=) and the REST API" })
  @ApiJson(200, agentCardView, { description: 'The agent card', headers: ['ETag', 'Cache-Control'] })
  @ApiNotModified()
  @ApiProblems('AGENT_NOT_FOUND')
  agent(@Param('agent') agent: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    return this.reads.agent(agent, request, reply);
  }
}
