/* global AbortSignal */
// The load of the multi-node drill, through the load balancer only: REST (executions with and without
// ?wait, reads, SSE streams followed to their end), gRPC (ExecuteSkill, GetSkill) and MCP (2025-era
// session clients that initialize again when their session is gone, and a 2026-07-28 client). Every
// answer is recorded with its send time and whether it is a proper error answer: a 503 problem with
// Retry-After, gRPC UNAVAILABLE, or a JSON-RPC error / tool error naming an unavailable dependency.
import path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import * as grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { REPO_ROOT } from '../../bench/support/registry-process.mjs';
import { sleep } from '../support/harness.mjs';
import { IDEMPOTENT, ONCE } from '../support/skills.mjs';
import { api } from '../support/stack.mjs';

const UNAVAILABLE_CODES = new Set(['QUEUE_UNAVAILABLE', 'DATABASE_UNAVAILABLE', 'REGISTRY_UNAVAILABLE']);
const MAX_IN_FLIGHT = 60;
/**
 * An MCP call's time limit. A 2025-era call whose replica dies after its response stream began is failed
 * by nothing but this: the SDK client waits for the stream to be resumed (docs/scaling.md).
 */
const MCP_CALL_TIMEOUT_MS = 10_000;

/** What the load shares: the records, the accepted executions (id → { skill, marker }), a marker factory. */
function recorder(markersDir) {
  let sequence = 0;
  const state = {
    records: [],
    accepted: new Map(),
    nextMarker: () => path.join(markersDir, `m${sequence++}`),
    record(entry) {
      state.records.push(entry);
    },
  };
  return state;
}

/** REST through `baseUrl`: `rate` requests per second over the operations below; every 5th accepted execution's events followed by SSE. */
function restLoad(state, baseUrl, rate, handlerMs) {
  const client = api(baseUrl);
  const pending = new Set();
  let inFlight = 0;
  let turn = 0;
  const operations = [
    { op: 'execute?wait', execute: ONCE, route: `/v1/skills/${ONCE}/executions?wait=10`, waits: true },
    { op: 'get skill', route: `/v1/skills/${ONCE}` },
    { op: 'execute', execute: IDEMPOTENT, route: `/v1/skills/${IDEMPOTENT}/executions` },
    { op: 'get execution', read: true },
    { op: 'execute', execute: ONCE, route: `/v1/skills/${ONCE}/executions` },
    { op: 'list skills', route: '/v1/skills?limit=20' },
  ];
  const fire = () => {
    if (inFlight >= MAX_IN_FLIGHT) return;
    const operation = operations[turn++ % operations.length];
    let route = operation.route;
    let body;
    let marker;
    if (operation.execute) {
      marker = state.nextMarker();
      body = { input: { marker, ms: handlerMs } };
    }
    if (operation.read) {
      const ids = [...state.accepted.keys()];
      if (ids.length === 0) return;
      route = `/v1/executions/${ids[Math.floor(Math.random() * ids.length)]}`;
    }
    inFlight++;
    const sentAt = Date.now();
    const request = client
      .request(operation.execute ? 'POST' : 'GET', route, body, { timeoutMs: operation.waits ? 30_000 : 15_000 })
      .then((answer) => {
        inFlight--;
        const ok = answer.status > 0 && answer.status < 400;
        const problem = String(answer.headers?.['content-type'] ?? '').includes('application/problem+json');
        const proper =
          answer.status === 503 && problem && Boolean(answer.headers?.['retry-after']) && UNAVAILABLE_CODES.has(answer.body?.code);
        state.record({
          transport: 'rest',
          op: operation.op,
          sentAt,
          ms: answer.ms,
          ok,
          proper,
          answered: answer.status > 0,
          label: answer.status === 0 ? `no answer (${answer.error})` : `${answer.status}${answer.body?.code ? ` ${answer.body.code}` : ''}`,
        });
        if (operation.execute && (answer.status === 200 || answer.status === 202) && answer.body?.id) {
          state.accepted.set(answer.body.id, { skill: operation.execute, marker, via: 'rest' });
          if (state.accepted.size % 5 === 0) followEvents(state, baseUrl, answer.body.id);
        }
      });
    pending.add(request);
    request.finally(() => pending.delete(request));
  };
  const timer = setInterval(fire, Math.max(1, Math.round(1000 / rate)));
  return async () => {
    clearInterval(timer);
    await Promise.race([Promise.allSettled([...pending]), sleep(35_000)]);
    client.close();
  };
}

/**
 * Follows an execution's SSE stream to its terminal event through the load balancer, resuming with
 * Last-Event-ID when the stream is cut (its replica died): recorded as one 'sse' answer.
 */
function followEvents(state, baseUrl, id) {
  const sentAt = Date.now();
  state.sse = state.sse ?? { started: 0, finished: 0, resumed: 0, pending: new Set() };
  state.sse.started++;
  const follow = (async () => {
    let lastEventId = null;
    for (let attempt = 0; attempt < 5; attempt++) {
      if (attempt > 0) state.sse.resumed++;
      try {
        const response = await fetch(`${baseUrl}/v1/executions/${id}/events`, {
          headers: lastEventId ? { 'last-event-id': lastEventId } : {},
          signal: AbortSignal.timeout(60_000),
        });
        if (response.status !== 200) {
          await response.body?.cancel();
          await sleep(1000);
          continue;
        }
        const text = await response.text().catch(() => '');
        for (const block of text.split('\n\n')) {
          const idLine = block.split('\n').find((line) => line.startsWith('id: '));
          const eventLine = block.split('\n').find((line) => line.startsWith('event: '));
          if (idLine) lastEventId = idLine.slice(4);
          if (eventLine && ['succeeded', 'failed', 'cancelled'].includes(eventLine.slice(7))) return true;
        }
      } catch {
        await sleep(1000);
      }
    }
    return false;
  })().then((ended) => {
    if (ended) state.sse.finished++;
    state.record({
      transport: 'rest',
      op: 'sse follow',
      sentAt,
      ms: Date.now() - sentAt,
      ok: ended,
      proper: false,
      answered: ended,
      label: ended ? 'ended' : 'not followed to its end',
    });
  });
  state.sse.pending.add(follow);
  follow.finally(() => state.sse.pending.delete(follow));
}

/** gRPC through `address`: ExecuteSkill (wait 10 s) and GetSkill in turn, `rate` calls per second. */
function grpcLoad(state, address, rate, handlerMs) {
  const definition = protoLoader.loadSync(path.join(REPO_ROOT, 'proto/skill_registry.proto'), {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const Service = grpc.loadPackageDefinition(definition).skillregistry.v1.SkillRegistry;
  const client = new Service(address, grpc.credentials.createInsecure());
  const pending = new Set();
  let turn = 0;
  const fire = () => {
    if (pending.size >= MAX_IN_FLIGHT) return;
    const execute = turn++ % 2 === 0;
    const marker = execute ? state.nextMarker() : null;
    const sentAt = Date.now();
    const call = new Promise((resolve) => {
      const done = (error, response) => {
        state.record({
          transport: 'grpc',
          op: execute ? 'ExecuteSkill' : 'GetSkill',
          sentAt,
          ms: Date.now() - sentAt,
          ok: !error,
          proper: Boolean(error) && error.code === grpc.status.UNAVAILABLE,
          answered: true,
          label: error ? `${grpc.status[error.code]}: ${String(error.details).slice(0, 80)}` : 'OK',
        });
        if (execute && !error && response?.execution?.id) state.accepted.set(response.execution.id, { skill: ONCE, marker, via: 'grpc' });
        resolve();
      };
      const deadline = { deadline: Date.now() + 30_000 };
      if (execute) client.ExecuteSkill({ name: ONCE, input: struct({ marker, ms: handlerMs }), wait_seconds: 10 }, deadline, done);
      else client.GetSkill({ name: ONCE }, deadline, done);
    });
    pending.add(call);
    call.finally(() => pending.delete(call));
  };
  const timer = setInterval(fire, Math.max(1, Math.round(1000 / rate)));
  return async () => {
    clearInterval(timer);
    await Promise.race([Promise.allSettled([...pending]), sleep(35_000)]);
    client.close();
  };
}

/** A google.protobuf.Struct of a flat object of strings and numbers. */
function struct(object) {
  const fields = {};
  for (const [key, value] of Object.entries(object))
    fields[key] = typeof value === 'number' ? { numberValue: value } : { stringValue: value };
  return { fields };
}

/**
 * One MCP client calling the ONCE skill in a loop. A 2025-era client (`protocol: '2025'`) holds a session;
 * when its replica is gone the session is too (404, or the request cut): it initializes again, as MCP
 * clients must, and goes on. A '2026-07-28' client has no session: any replica serves each request.
 */
function mcpLoad(state, baseUrl, protocol, handlerMs, pauseMs) {
  let stopped = false;
  const stats = { protocol, sessions: 0, reinitialized: 0, calls: 0 };
  const connect = async () => {
    const client = new Client(
      { name: `drill-scale-${protocol}`, version: '1.0.0' },
      protocol === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
    );
    const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`));
    await client.connect(transport, { timeout: 10_000 });
    stats.transport = transport;
    return client;
  };
  const close = (client) => Promise.race([client?.close().catch(() => undefined), sleep(2000)]);
  const loop = (async () => {
    let client = null;
    let failures = 0;
    while (!stopped) {
      const sentAt = Date.now();
      try {
        if (!client) {
          client = await connect();
          if (stats.sessions++ > 0) stats.reinitialized++;
        }
        const marker = state.nextMarker();
        const result = await client.callTool({ name: ONCE, arguments: { marker, ms: handlerMs } }, { timeout: MCP_CALL_TIMEOUT_MS });
        failures = 0;
        stats.calls++;
        const facts = result._meta?.['skill-registry/execution'];
        const text = result.content?.[0]?.text ?? '';
        const code = facts?.error?.code ?? /^([A-Z_]+): /.exec(text)?.[1];
        if (facts?.id) state.accepted.set(facts.id, { skill: ONCE, marker, via: `mcp ${protocol}` });
        // A result that names its execution was accepted (its outcome, even a failure, is judged from the execution).
        state.record({
          transport: `mcp ${protocol}`,
          op: 'tools/call',
          sentAt,
          ms: Date.now() - sentAt,
          ok: !result.isError || Boolean(facts?.id),
          proper: Boolean(result.isError) && UNAVAILABLE_CODES.has(code),
          answered: true,
          label: result.isError ? `tool error ${code}` : 'ok',
        });
      } catch (error) {
        // A JSON-RPC error (404 session not found, or the load balancer's 503 problem) is an answer; a cut request is not.
        const status = error?.status ?? error?.data?.status;
        const jsonRpc = typeof error?.code === 'number' || status === 404 || status === 503;
        state.record({
          transport: `mcp ${protocol}`,
          op: client ? 'tools/call' : 'initialize',
          sentAt,
          ms: Date.now() - sentAt,
          ok: false,
          proper: jsonRpc,
          answered: jsonRpc,
          // No answer within the request's time limit: a cut only when it was sent before a kill.
          timedOut: error?.code === 'REQUEST_TIMEOUT',
          label: `${status ?? error?.code ?? ''} ${String(error?.message).slice(0, 100)}`.trim(),
        });
        // As an MCP client must: a session the server no longer knows (404) is opened again; a request cut
        // on the way is retried once on the same session first (its replica may be alive).
        if (status === 404 || ++failures >= 2 || protocol !== '2025') {
          await close(client);
          client = null;
        }
        await sleep(500);
      }
      await sleep(pauseMs);
    }
    await close(client);
  })();
  return { stats, stop: async () => ((stopped = true), await Promise.race([loop, sleep(35_000)])) };
}

/**
 * Starts the whole load against the load balancer; returns { records, accepted, sse, mcp, stop() }.
 * `rate`: REST requests per second (gRPC gets a quarter of it); `mcpClients`: 2025-era session clients
 * (one 2026-07-28 client runs beside them).
 */
export function startLoad({ http, grpcAddress, markersDir, rate, handlerMs, mcpClients = 2 }) {
  const state = recorder(markersDir);
  const stops = [restLoad(state, http, rate, handlerMs), grpcLoad(state, grpcAddress, Math.max(1, rate / 4), handlerMs)];
  const mcp = [];
  for (let i = 0; i < mcpClients; i++) mcp.push(mcpLoad(state, http, '2025', handlerMs, 300));
  mcp.push(mcpLoad(state, http, '2026-07-28', handlerMs, 300));
  return {
    state,
    mcp: mcp.map((m) => m.stats),
    /** The session ids the 2025-era clients hold now. */
    sessionIds: () => mcp.map((m) => m.stats.transport?.sessionId).filter(Boolean),
    async stop() {
      await Promise.all([...stops.map((stop) => stop()), ...mcp.map((m) => m.stop())]);
      if (state.sse) await Promise.race([Promise.allSettled([...state.sse.pending]), sleep(65_000)]);
    },
  };
}
