import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { freePort, startAdapterProcess, type AdapterProcess } from '../adapters/support.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, eventually, EXECUTION_SKILLS_ROOT, markerDir, obliterateQueue } from '../support/executions.js';
import { call, startRegistry, type RunningRegistry } from '../support/registry.js';

interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
}

/** An OTLP/HTTP (JSON) trace receiver: what the three processes export lands here. */
async function startReceiver(): Promise<{ server: Server; endpoint: string; spans: ReceivedSpan[] }> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      try {
        const parsed = JSON.parse(body) as { resourceSpans?: any[] };
        for (const resourceSpans of parsed.resourceSpans ?? []) {
          const service = resourceSpans.resource?.attributes?.find((attribute: any) => attribute.key === 'service.name')?.value
            ?.stringValue;
          for (const scope of resourceSpans.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({ service, name: span.name, traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId ?? '' });
            }
          }
        }
      } catch {
        // Not JSON (a protobuf exporter): the test below fails on missing spans, naming them.
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, spans };
}

/**
 * One trace across processes: a request with a `traceparent` to the registry, the queue wait and the
 * attempt in the executor, the tool call and the adapter's span, all under the caller's trace id,
 * exported with the standard OTEL_* variables.
 */
describe('OpenTelemetry traces across registry, executor and adapter', () => {
  let db: TestDatabase;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  let adapter: AdapterProcess;
  let markers: string;
  const queuePrefix = `test-tracing-${process.pid}-${Date.now()}`;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    db = await createTestDatabase('tracing');
    markers = await markerDir();
    receiver = await startReceiver();
    const otel = { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50' };
    // The registry runs in this process: it reads the variables at start.
    for (const [key, value] of Object.entries(otel)) {
      saved[key] = process.env[key];
      process.env[key] = value;
    }
    const port = await freePort();
    adapter = await startAdapterProcess('spice', port, otel);
    const toolAdapters = `spice=http://127.0.0.1:${port}/mcp`;
    registry = await startRegistry({
      databaseUrl: db.url,
      skillPaths: [EXECUTION_SKILLS_ROOT],
      queuePrefix,
      env: { TOOL_ADAPTERS: toolAdapters },
    });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env: { TOOL_ADAPTERS: toolAdapters, ...otel } });
    await activate(registry.baseUrl, ['tool_sim_idempotent']);
  }, 60_000);

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await adapter?.kill();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await new Promise((resolve) => receiver?.server.close(resolve));
    await rm(markers, { recursive: true, force: true });
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('continues the caller trace through the queue, the attempt and the tool call, and records its id', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const run = await call(registry.baseUrl, 'POST', '/v1/skills/tool_sim_idempotent/executions?wait=30', {
      body: { input: { marker: path.join(markers, 'traced'), stop_s: 0.01 } },
      headers: { traceparent: `00-${traceId}-${callerSpan}-01` },
    });
    expect(run.body).toMatchObject({ status: 'SUCCEEDED', trace_id: traceId });
    expect((await call(registry.baseUrl, 'GET', `/v1/executions/${run.body.id}`)).body.trace_id).toBe(traceId);

    const expected = [
      ['skill-registry', 'POST /v1/skills/:name/executions'],
      ['skill-registry', 'execute tool_sim_idempotent'],
      ['skill-registry-executor', 'execution.queue_wait'],
      ['skill-registry-executor', 'execution.attempt tool_sim_idempotent'],
      ['skill-registry-executor', 'tool.call spice.simulate'],
      ['skill-registry-adapter-spice', 'tool spice.simulate'],
    ];
    const find = (service: string, name: string) =>
      receiver.spans.find((span) => span.service === service && span.name === name && span.traceId === traceId);
    await eventually(async () => expected.every(([service, name]) => find(service as string, name as string)), 15_000);
    const spans = Object.fromEntries(expected.map(([service, name]) => [name, find(service as string, name as string) as ReceivedSpan]));
    // The chain of parents: caller → request → enqueue → attempt → tool call → adapter.
    expect(spans['POST /v1/skills/:name/executions']?.parentSpanId).toBe(callerSpan);
    expect(spans['execute tool_sim_idempotent']?.parentSpanId).toBe(spans['POST /v1/skills/:name/executions']?.spanId);
    expect(spans['execution.attempt tool_sim_idempotent']?.parentSpanId).toBe(spans['execute tool_sim_idempotent']?.spanId);
    expect(spans['execution.queue_wait']?.parentSpanId).toBe(spans['execute tool_sim_idempotent']?.spanId);
    expect(spans['tool.call spice.simulate']?.parentSpanId).toBe(spans['execution.attempt tool_sim_idempotent']?.spanId);
    expect(spans['tool spice.simulate']?.parentSpanId).toBe(spans['tool.call spice.simulate']?.spanId);
  });

  it('starts a trace of its own for a request without trace context, and records that id', async () => {
    const run = await call(registry.baseUrl, 'POST', '/v1/skills/tool_sim_idempotent/executions?wait=30', {
      body: { input: { marker: path.join(markers, 'untraced'), stop_s: 0.01 } },
    });
    expect(run.body.status).toBe('SUCCEEDED');
    expect(run.body.trace_id).toMatch(/^[0-9a-f]{32}$/);
    await eventually(
      async () => receiver.spans.some((span) => span.traceId === run.body.trace_id && span.service === 'skill-registry-adapter-spice'),
      15_000,
    );
  });

  it('ignores a malformed traceparent rather than failing the request', async () => {
    const run = await call(registry.baseUrl, 'POST', '/v1/skills/tool_sim_idempotent/executions?wait=30', {
      body: { input: { marker: path.join(markers, 'malformed'), stop_s: 0.01 } },
      headers: { traceparent: '00-zzzz-not-a-trace' },
    });
    expect(run.status).toBe(200);
    expect(run.body.trace_id).toMatch(/^[0-9a-f]{32}$/);
  });
});
