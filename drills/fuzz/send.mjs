// Sends one case and classifies the answer. Every request has its own timeout (gRPC: deadline);
// no answer within it is a hang. Verdicts: ok | 5xx | hang | contract | reset | expected | unsendable.
import http from 'node:http';
import grpc from '@grpc/grpc-js';

export const SERVER_ERROR_CODES = new Set([grpc.status.UNKNOWN, grpc.status.INTERNAL, grpc.status.DATA_LOSS, grpc.status.UNAVAILABLE]);
// Answers are kept whole up to this size (some echo a 100 KB+ input back); beyond it they are cut.
const MAX_BODY = 4 * 1024 * 1024;
// How long an event stream that has sent its head is watched for an error before the case counts as answered.
const OPEN_STREAM_LOOK_MS = 300;

/** Raw HTTP/1.1 via node:http (fetch normalises paths and refuses Host headers; this sends them as built). */
function httpRequest(agent, baseUrl, { method, path, headers, body }, timeoutMs) {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    let settled = false;
    const done = (value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    let req;
    // Node sends a GET body without framing unless told its length (the server would read it as the next request).
    const framed = body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) };
    try {
      req = http.request({ host: hostname, port, method, path, headers: framed, agent }, (res) => {
        const chunks = [];
        let size = 0;
        // An event stream outside /mcp (GET /v1/events, an execution's events) stays open by design: once it has
        // answered 200 with its head, it is an answer; the case is done after a short look at its first bytes.
        if (res.statusCode === 200 && String(res.headers['content-type']).includes('text/event-stream') && !path.startsWith('/mcp')) {
          setTimeout(() => {
            done({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), truncated: false });
            req.destroy();
          }, OPEN_STREAM_LOOK_MS);
        }
        res.on('data', (chunk) => {
          size += chunk.length;
          if (size <= MAX_BODY) chunks.push(chunk);
        });
        res.on('end', () =>
          done({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), truncated: size > MAX_BODY }),
        );
        res.on('error', (error) => done({ error: `response ${error.code ?? error.message}` }));
      });
    } catch (error) {
      resolve({ unsendable: error.code ?? error.message });
      return;
    }
    const timer = setTimeout(() => {
      done({ hang: true });
      req.destroy();
    }, timeoutMs);
    req.on('error', (error) => done({ error: error.code ?? error.message }));
    req.end(body);
  });
}

const NODE_MAX_HEADER_SIZE = 16 * 1024;
const headSize = ({ path, headers = {}, token = '' }) =>
  path.length + token.length + Object.entries(headers).reduce((sum, [name, value]) => sum + name.length + String(value).length + 4, 0);

const json = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** JSON-RPC messages of an /mcp answer: a JSON body, or the `data:` lines of an SSE body. */
function jsonRpcMessages(answer) {
  const type = String(answer.headers['content-type'] ?? '');
  const values = type.includes('text/event-stream')
    ? answer.text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => json(line.slice(5).trim()))
    : [json(answer.text)];
  return values.flatMap((value) => (Array.isArray(value) ? value : [value])).filter((value) => value && typeof value === 'object');
}

function classifyHttp(testCase, answer) {
  if (answer.unsendable) return { verdict: 'unsendable', status: 'unsendable', answer: answer.unsendable };
  if (answer.hang) return { verdict: 'hang', status: 'timeout', answer: 'no answer within the timeout' };
  if (answer.error) {
    // Node's HTTP parser refuses a request head over its 16 KiB limit (431) and closes at once, so
    // the client may see the close while still writing: the server's refusal, not a reset.
    if (headSize(testCase) > NODE_MAX_HEADER_SIZE) return { verdict: 'expected', status: 'head over 16 KiB', answer: answer.error };
    return { verdict: 'reset', status: 'no-response', answer: answer.error };
  }
  const type = String(answer.headers['content-type'] ?? '');
  const excerpt = `${answer.status} ${type} ${answer.text.slice(0, 200)}`;
  if (answer.status >= 500) return { verdict: '5xx', status: String(answer.status), answer: excerpt };
  const isMcp = testCase.path.startsWith('/mcp');
  if (isMcp) {
    const internal = jsonRpcMessages(answer).find((message) => message.error?.code === -32603);
    if (internal) return { verdict: '5xx', status: 'jsonrpc -32603', answer: excerpt };
    const pending = jsonRpcMessages(answer).find((m) => JSON.stringify(m.result?.content ?? '').includes('EXECUTION_PENDING'));
    if (pending) return { verdict: 'contract', status: 'execution created', answer: excerpt };
  }
  // Errors of the REST API are RFC 9457 problem details; /mcp may also answer JSON-RPC errors.
  // 431 comes from Node's HTTP parser (headers over its limit) before the application sees the request.
  if (answer.status >= 400 && answer.status !== 431) {
    const problem = type.startsWith('application/problem+json') && (typeof json(answer.text)?.code === 'string' || answer.truncated);
    const jsonRpc = isMcp && jsonRpcMessages(answer).some((m) => m.error);
    if (!problem && !jsonRpc) return { verdict: 'contract', status: `${answer.status} not problem+json`, answer: excerpt };
  }
  return { verdict: 'ok', status: String(answer.status), answer: excerpt };
}

function withAuth(headers, token) {
  const out = { ...headers };
  if (token !== undefined && !('authorization' in out)) out.authorization = `Bearer ${token}`;
  return out;
}

export async function sendRest(testCase, { agent, baseUrl, timeoutMs }) {
  const answer = await httpRequest(agent, baseUrl, { ...testCase, headers: withAuth(testCase.headers, testCase.token) }, timeoutMs);
  return classifyHttp(testCase, answer);
}

/** /mcp: resolves the session placeholder, fills in the same-origin Origin, and closes sessions a case opened. */
export async function sendMcp(testCase, { agent, baseUrl, timeoutMs, sessions }) {
  const headers = withAuth(testCase.headers, testCase.token);
  if (headers.origin === 'SAME') headers.origin = baseUrl;
  const sessionId = { admin: sessions.admin, agent: sessions.agent, junk: '00000000-0000-4000-8000-000000000000', long: 's'.repeat(9000) }[
    testCase.session
  ];
  if (sessionId) headers['mcp-session-id'] = sessionId;
  const answer = await httpRequest(agent, baseUrl, { ...testCase, headers }, timeoutMs);
  const opened = answer.headers?.['mcp-session-id'];
  if (opened && opened !== sessionId) {
    await httpRequest(
      agent,
      baseUrl,
      { method: 'DELETE', path: '/mcp', headers: withAuth({ 'mcp-session-id': opened }, testCase.token) },
      timeoutMs,
    );
  }
  return classifyHttp(testCase, answer);
}

/**
 * Unary or server-streaming call with pre-encoded bytes (so wire-level cases and messages go the
 * same way), on a connection of its own: a case that wedges its HTTP/2 connection (seen with
 * requests over the 64 KiB flow-control window) must not turn the cases after it into hangs.
 */
export async function sendGrpc(testCase, { grpcAddress, service, timeoutMs }) {
  const client = new grpc.Client(grpcAddress, grpc.credentials.createInsecure(), {
    'grpc.use_local_subchannel_pool': 1,
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
  });
  try {
    return await callGrpc(testCase, { client, service, timeoutMs });
  } finally {
    client.close();
  }
}

function callGrpc(testCase, { client, service, timeoutMs }) {
  const method = service[testCase.rpc];
  let bytes = testCase.bytes;
  if (!bytes) {
    try {
      bytes = method.requestSerialize(testCase.request);
    } catch (error) {
      return Promise.resolve({ verdict: 'unsendable', status: 'unsendable', answer: `client cannot encode: ${error.message}` });
    }
  }
  const metadata = new grpc.Metadata();
  if (testCase.token !== undefined) metadata.set('authorization', `Bearer ${testCase.token}`);
  const options = { deadline: Date.now() + timeoutMs };
  const identity = (value) => value;
  return new Promise((resolve) => {
    const finish = (error) => {
      if (!error) return resolve({ verdict: 'ok', status: 'OK', answer: 'OK' });
      const name = grpc.status[error.code] ?? String(error.code);
      const answer = `${name}: ${String(error.details).slice(0, 200)}`;
      if (error.code === grpc.status.DEADLINE_EXCEEDED) return resolve({ verdict: 'hang', status: 'DEADLINE_EXCEEDED', answer });
      // grpc-js answers bytes that are not protobuf with INTERNAL itself, before the registry's code runs.
      if (testCase.undecodable && error.code === grpc.status.INTERNAL && /deserializ/i.test(error.details))
        return resolve({ verdict: 'expected', status: name, answer });
      resolve({ verdict: SERVER_ERROR_CODES.has(error.code) ? '5xx' : 'ok', status: name, answer });
    };
    if (method.responseStream) {
      const call = client.makeServerStreamRequest(method.path, identity, identity, bytes, metadata, options);
      // A subscription that has sent its headers is open by design (WatchEvents stays open until cancelled): an
      // answer, once no status follows the headers within a short look.
      let opened = false;
      call.on('data', () => undefined);
      call.on('error', (error) => (error.code === grpc.status.CANCELLED && opened ? undefined : finish(error)));
      call.on('end', () => finish(null));
      call.on('metadata', () => {
        opened = true;
        setTimeout(() => {
          resolve({ verdict: 'ok', status: 'OK', answer: 'stream open (headers sent, no status)' });
          call.cancel();
        }, OPEN_STREAM_LOOK_MS);
      });
    } else {
      client.makeUnaryRequest(method.path, identity, identity, bytes, metadata, options, (error) => finish(error));
    }
  });
}
