import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { JsonRejected } from '#contracts/index.js';
import { problem, RETRY_AFTER_SECONDS, toProblem, type ProblemDetails } from './problem-details.js';

/** The REST transport's one error mapper: every error leaves as application/problem+json. */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemDetails');

  catch(error: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw error;
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    sendProblem(reply, request, error, this.logger);
  }
}

export function sendProblem(reply: FastifyReply, request: FastifyRequest, error: unknown, logger: Logger): void {
  // A refused JSON body on the MCP endpoint is a JSON-RPC parse error (-32700) or invalid params (-32602).
  if (error instanceof JsonRejected && request.url.startsWith('/mcp')) {
    const code = error.kind === 'malformed' ? -32700 : -32602;
    void reply
      .status(400)
      .header('Content-Type', 'application/json')
      .send({ jsonrpc: '2.0', id: null, error: { code, message: error.message } });
    return;
  }
  let body: ProblemDetails | null = toProblem(error);
  if (!body) {
    logger.error(`unexpected error on ${request.method} ${request.url}: ${(error as Error)?.stack ?? String(error)}`);
    body = problem(500, 'INTERNAL', 'The server failed to handle this request; it has been logged');
  }
  body.instance = request.url;
  if (body.status === 401) reply.header('WWW-Authenticate', 'Bearer realm="skill-registry"');
  if (body.status === 503) reply.header('Retry-After', String(RETRY_AFTER_SECONDS));
  if (body.status === 429 && typeof body.retry_after_seconds === 'number') reply.header('Retry-After', String(body.retry_after_seconds));
  void reply.status(body.status).header('Content-Type', 'application/problem+json').send(body);
}
