// Runs cases with bounded concurrency against a running registry and summarises the outcome:
// counts per transport, failures grouped by signature (transport + route + status) with one
// reproduction each, and the database snapshot comparison.
import http from 'node:http';
import { sendGrpc, sendMcp, sendRest } from './send.mjs';

export const FAILING = new Set(['5xx', 'hang', 'contract', 'reset', 'crash']);

/**
 * fetch, tried a second time when the first fails to send: generating the cases blocks the event loop for tens of
 * seconds, so the pooled connection of the last fetch before it may have been closed by the server unnoticed.
 */
const fetchFresh = (url, init) => fetch(url, init).catch(() => fetch(url, init));

/**
 * Opens one 2025-era MCP session per token (the sessions fuzz cases are sent on); returns their ids.
 */
export async function openMcpSessions(baseUrl, tokens) {
  const sessions = {};
  for (const [label, token] of Object.entries({ admin: tokens.admin, agent: tokens.agent })) {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
    };
    const response = await fetchFresh(`${baseUrl}/mcp`, { method: 'POST', headers, body: JSON.stringify(init) });
    await response.text();
    const id = response.headers.get('mcp-session-id');
    if (!id) throw new Error(`could not open an MCP session (${response.status})`);
    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
    await (
      await fetch(`${baseUrl}/mcp`, {
        method: 'POST',
        headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify(initialized),
      })
    ).text();
    sessions[label] = id;
  }
  return sessions;
}

export async function closeMcpSessions(baseUrl, tokens, sessions) {
  for (const [label, id] of Object.entries(sessions)) {
    await fetch(`${baseUrl}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${tokens[label]}`, 'mcp-session-id': id } }).catch(
      () => undefined,
    );
  }
}

/**
 * Sends every case (concurrency bounded) and returns one result per case sent.
 * `isCrashed()` stops the run: cases in flight when the registry died are marked as crashes.
 */
export async function runCases(
  cases,
  { baseUrl, grpcPort, service, sessions, concurrency = 8, timeoutMs = 10_000, deadlineMs = Infinity, isCrashed = () => false, onProgress },
) {
  // One connection per request: a hostile request that leaves its connection unusable (unread body
  // bytes, a close after an error) must not be blamed on the next case sent on the same socket.
  const agent = new http.Agent({ keepAlive: false, maxSockets: concurrency * 2 });
  const context = { agent, baseUrl, timeoutMs, sessions, grpcAddress: `127.0.0.1:${grpcPort}`, service };
  const results = [];
  let next = 0;
  let stopped = null;
  const worker = async () => {
    while (next < cases.length && !stopped) {
      if (isCrashed()) stopped = 'crash';
      else if (Date.now() > deadlineMs) stopped = 'time';
      if (stopped) break;
      const index = next++;
      const testCase = cases[index];
      const started = Date.now();
      const send = testCase.transport === 'grpc' ? sendGrpc : testCase.transport === 'mcp' ? sendMcp : sendRest;
      let outcome = await send(testCase, context).catch((error) => ({
        verdict: 'reset',
        status: 'client-error',
        answer: String(error?.message ?? error),
      }));
      if (isCrashed()) outcome = { verdict: 'crash', status: 'registry exited', answer: outcome.answer };
      results.push({ index: testCase.id ?? index, testCase, ...outcome, ms: Date.now() - started });
      onProgress?.(results.length);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  return { results, stopped };
}

/** A case as a short reproduction: transport, route, method + path or RPC, token kind, body excerpt (≤ 300 chars). */
export function reproduction(testCase, tokens) {
  const tokenKind =
    testCase.token === tokens.admin ? 'admin' : testCase.token === tokens.agent ? 'agent' : testCase.token === undefined ? 'none' : 'junk';
  const excerpt = (value) => {
    if (value === undefined) return '';
    const text = Buffer.isBuffer(value)
      ? `<${value.length} bytes> ${value.toString('latin1')}`
      : typeof value === 'string'
        ? value
        : JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? String(v) : v));
    const shown = JSON.stringify(text.length > 300 ? `${text.slice(0, 300)}…(${text.length} chars)` : text);
    return shown;
  };
  if (testCase.transport === 'grpc') {
    const wire = testCase.wire ? ` wire=${testCase.wire}` : '';
    return `grpc ${testCase.rpc}${wire} token=${tokenKind} request=${excerpt(testCase.request)}`;
  }
  const headers = Object.keys(testCase.headers ?? {}).length ? ` headers=${excerpt(testCase.headers)}` : '';
  const session = testCase.session ? ` session=${testCase.session}` : '';
  return `${testCase.transport} ${testCase.method} ${testCase.path.length > 300 ? testCase.path.slice(0, 300) + '…' : testCase.path} token=${tokenKind}${session}${headers} body=${excerpt(testCase.body)}`;
}

/** Counts per transport and failures grouped by signature. */
export function summarise(results) {
  const perTransport = {};
  const groups = new Map();
  for (const result of results) {
    const t = (perTransport[result.testCase.transport] ??= {
      cases: 0,
      ok: 0,
      '5xx': 0,
      hang: 0,
      contract: 0,
      reset: 0,
      crash: 0,
      expected: 0,
      unsendable: 0,
    });
    t.cases++;
    t[result.verdict]++;
    if (!FAILING.has(result.verdict)) continue;
    const signature = `${result.testCase.transport} | ${result.testCase.route} | ${result.verdict} ${result.status}`;
    const group = groups.get(signature) ?? { signature, count: 0, first: result };
    group.count++;
    groups.set(signature, group);
  }
  return { perTransport, failures: [...groups.values()].sort((a, b) => b.count - a.count) };
}

export function formatReport({ summary, stateChanges, crashed, stopped, tokens, seed, elapsedMs }) {
  const lines = [];
  lines.push(`seed ${seed}; ${Math.round(elapsedMs / 1000)} s${stopped ? `; stopped early (${stopped})` : ''}`);
  lines.push('transport   cases      ok     5xx    hang  contract  reset  crash  expected  unsendable');
  for (const [name, t] of Object.entries(summary.perTransport)) {
    const cells = [t.cases, t.ok, t['5xx'], t.hang, t.contract, t.reset, t.crash, t.expected, t.unsendable];
    lines.push(`${name.padEnd(9)} ${cells.map((c, i) => String(c).padStart([7, 7, 7, 7, 9, 6, 6, 9, 11][i])).join(' ')}`);
  }
  lines.push(
    'failing: 5xx, hang, contract (an error that is not problem details / JSON-RPC, or an execution created), reset, crash; ' +
      'not failing: expected (grpc-js INTERNAL for bytes that are not protobuf; Node closing on a head over 16 KiB), unsendable (client could not encode)',
  );
  lines.push(`crashes: ${crashed ? 'registry exited' : 0}; state changes: ${stateChanges.length ? stateChanges.join('; ') : 'none'}`);
  lines.push(`distinct failures: ${summary.failures.length}`);
  for (const group of summary.failures) {
    lines.push(`  [${group.count}] ${group.signature}`);
    lines.push(`      case #${group.first.index}: ${reproduction(group.first.testCase, tokens)}`);
    lines.push(`      answer: ${group.first.answer.replace(/\s+/g, ' ').slice(0, 300)}`);
  }
  return lines.join('\n');
}
