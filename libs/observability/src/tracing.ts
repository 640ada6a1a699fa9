import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * OpenTelemetry tracing for every process of the system (registry, executor, adapters), configured by
 * the standard variables: `OTEL_TRACES_EXPORTER` (`none` by default, `otlp`, `console`),
 * `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` and the other `OTEL_EXPORTER_OTLP_*`
 * (read by the OTLP exporter itself), `OTEL_SERVICE_NAME`, `OTEL_SDK_DISABLED`. With export off no SDK is
 * loaded: the API's no-op tracer only carries an incoming trace context along (so trace ids still reach
 * the records), at no cost beyond that.
 */
export interface Tracing {
  enabled: boolean;
  /** Exports what is buffered. */
  flush(): Promise<void>;
  /** Flushes and stops the exporter (call on shutdown). */
  shutdown(): Promise<void>;
}

const TRACER = 'skill-registry';
const OFF: Tracing = { enabled: false, flush: async () => undefined, shutdown: async () => undefined };

let started: Promise<Tracing> | null = null;

/** Starts tracing once per process (a second call, e.g. a second app in one test process, gets the first's). */
export function startTracing(service: string, env: NodeJS.ProcessEnv = process.env): Promise<Tracing> {
  started ??= configure(service, env).catch((error: unknown) => {
    started = null;
    throw error;
  });
  return started;
}

async function configure(service: string, env: NodeJS.ProcessEnv): Promise<Tracing> {
  // The propagator is set either way: trace context must flow between processes even while export is off.
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const exporterName = (env.OTEL_TRACES_EXPORTER ?? 'none').split(',')[0]?.trim().toLowerCase();
  if (env.OTEL_SDK_DISABLED === 'true' || !exporterName || exporterName === 'none') return OFF;
  if (exporterName !== 'otlp' && exporterName !== 'console') {
    throw new Error(`OTEL_TRACES_EXPORTER=${exporterName} is not supported here; use otlp, console or none`);
  }
  // Loaded only when export is on, so a process with tracing off never pays for the SDK.
  const [{ TracerProvider, BatchSpanProcessor, ConsoleSpanExporter }, { resourceFromAttributes }, { AsyncLocalStorageContextManager }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/context-async-hooks'),
    ]);
  const exporter =
    exporterName === 'otlp' ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter() : new ConsoleSpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? service }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        ...(env.OTEL_BSP_SCHEDULE_DELAY ? { scheduledDelayMillis: Number(env.OTEL_BSP_SCHEDULE_DELAY) } : {}),
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  return { enabled: true, flush: () => provider.forceFlush(), shutdown: () => provider.shutdown() };
}

/** The trace context a carrier (HTTP headers, gRPC metadata, MCP `_meta`) brings; the root context when it brings none. */
export function extractTraceContext(carrier: Record<string, unknown> | undefined): Context {
  if (!carrier) return ROOT_CONTEXT;
  const traceparent = first(carrier.traceparent);
  if (traceparent === undefined) return ROOT_CONTEXT;
  const tracestate = first(carrier.tracestate);
  return propagation.extract(ROOT_CONTEXT, { traceparent, ...(tracestate !== undefined ? { tracestate } : {}) });
}

/** The W3C `traceparent` of a context, or null when it carries no valid span context. */
export function traceparentOf(ctx: Context): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent ?? null;
}

/** The trace id of a context (32 hex digits), or null. */
export function traceIdOf(ctx: Context): string | null {
  const spanContext = trace.getSpanContext(ctx);
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext.traceId : null;
}

/** Starts a span as a child of `parent` (with export off, a no-op span carrying the parent's context). */
export function startSpan(
  name: string,
  parent: Context,
  options: { kind?: SpanKind; attributes?: Attributes; startTime?: Date } = {},
): {
  span: Span;
  context: Context;
} {
  const span = trace
    .getTracer(TRACER)
    .startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, startTime: options.startTime }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `work` in a child span of `parent`, ending it with the outcome (an exception marks it as an error). */
export async function inSpan<T>(
  name: string,
  parent: Context,
  options: { kind?: SpanKind; attributes?: Attributes },
  work: (span: Span, spanContext: Context) => Promise<T>,
): Promise<T> {
  const { span, context: spanContext } = startSpan(name, parent, options);
  try {
    return await context.with(spanContext, () => work(span, spanContext));
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
}

function first(value: unknown): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return typeof text === 'string' && text.length > 0 && text.length <= 512 ? text : undefined;
}

export { ROOT_CONTEXT as ROOT_TRACE_CONTEXT, SpanKind, SpanStatusCode, type Context as TraceContext, type Span };
