import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ifNoneMatchMatches, type JsonRead } from '../skills/conditional-get.js';
import { AgentCards } from './agent-cards.js';

/** Cards change with promotions and deprecations: clients keep one a minute, then revalidate it by its ETag (A2A §8.6). */
const MAX_AGE_SECONDS = 60;

/** Sends agent cards: ETag from the content, Cache-Control (shared caches only when no token is needed), 304 for a current copy. */
@Injectable()
export class AgentCardReads {
  constructor(private readonly cards: AgentCards) {}

  async registry(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    return this.send(request, reply, await this.cards.registry(originOf(request)));
  }

  async agent(agent: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    return this.send(request, reply, await this.cards.agent(agent, originOf(request)));
  }

  private send(request: FastifyRequest, reply: FastifyReply, read: JsonRead): FastifyReply {
    void reply.header('etag', read.etag).header('cache-control', `${this.cards.public ? 'public' : 'private'}, max-age=${MAX_AGE_SECONDS}`);
    if (ifNoneMatchMatches(request.headers['if-none-match'], read.etag)) return reply.code(304).send();
    return reply.header('content-type', 'application/json; charset=utf-8').send(read.body);
  }
}

/** The origin the request was sent to (its Host was checked against ALLOWED_HOSTS at the edge). */
function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}
