import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SpanKind, SpanStatusCode, type Span, type TraceContext, extractTraceContext, startSpan } from '#observability/index.js';

type TracedRequest = FastifyRequest & { traceSpan?: Span; traceContext?: TraceContext };

/**
 * A server span per HTTP request, continuing the caller's `traceparent`. Installed only when trace
 * export is on; with it off, `traceContextOf` still reads the caller's context so its trace id reaches
 * the execution records.
 */
export function installRequestTracing(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', async (request: TracedRequest) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const { span, context } = startSpan(`${request.method} ${route}`, extractTraceContext(request.headers), {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': request.method, 'http.route': route },
    });
    request.traceSpan = span;
    request.traceContext = context;
  });
  fastify.addHook('onResponse', async (request: TracedRequest, reply) => {
    const span = request.traceSpan;
    if (!span) return;
    span.setAttribute('http.response.status_code', reply.statusCode);
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
}

/** The trace context of a request: its server span's, else the caller's `traceparent` (root when none). */
export function traceContextOf(request: FastifyRequest): TraceContext {
  return (request as TracedRequest).traceContext ?? extractTraceContext(request.headers);
}
