// MCP cases for /mcp (Streamable HTTP, JSON-RPC 2.0), from what apps/registry/src/mcp serves:
// initialize, tools/list (cursor paging), tools/call (skills + search_skills/get_skill_info),
// both protocol eras, as single messages, batches and posted responses, and HTTP-level mangling.
import fc from 'fast-check';
import { echoInputInvalid } from './invalid-bodies.mjs';
import { jsonBodyForms, headerSafe } from './http-forms.mjs';
import { encodeSegment, forgedCursor, hostileString, tokenArbitrary, withNul, wrongType } from './values.mjs';

const MODERN = '2026-07-28';
const META = {
  version: 'io.modelcontextprotocol/protocolVersion',
  info: 'io.modelcontextprotocol/clientInfo',
  caps: 'io.modelcontextprotocol/clientCapabilities',
};

const id = fc.oneof(
  { arbitrary: fc.nat(), weight: 6 },
  fc.constantFrom(null, 1.5, -1, 2 ** 53 + 10, true, '', 'x'.repeat(5000)),
  fc.constant({}),
  fc.constant([]),
  hostileString,
);
const jsonrpc = fc.oneof({ arbitrary: fc.constant('2.0'), weight: 8 }, fc.constantFrom(undefined, '1.0', 2, null, '2.0 ', '2.00'));
const clientInfo = fc.oneof(
  { arbitrary: fc.constant({ name: 'fuzz', version: '1.0.0' }), weight: 3 },
  wrongType,
  fc.record({ name: wrongType, version: wrongType }),
);

function toolsCall(targets) {
  const echo = targets.active.map((s) => s.name);
  return fc.oneof(
    // A skill tool: the arguments are always invalid (a valid call would run the skill).
    { arbitrary: fc.record({ name: fc.constantFrom(...echo), arguments: fc.option(echoInputInvalid, { nil: undefined }) }), weight: 4 },
    {
      arbitrary: fc.record({
        name: fc.constantFrom('search_skills', 'get_skill_info'),
        arguments: fc.oneof(
          fc.dictionary(fc.constantFrom('query', 'name', 'domain', 'agent', 'tags', 'limit', 'zz'), wrongType),
          wrongType,
        ),
      }),
      weight: 4,
    },
    { arbitrary: fc.record({ name: fc.oneof(hostileString, wrongType), arguments: wrongType }), weight: 2 },
    {
      arbitrary: fc.record({ name: fc.constantFrom(...echo), arguments: echoInputInvalid, _meta: fc.record({ progressToken: wrongType }) }),
      weight: 1,
    },
  );
}

/** skill:// URIs near real ones: traversal, encodings, NUL, directories, very long names. */
const skillUri = fc.oneof(
  fc.constantFrom(
    'skill://fuzz/fuzz-echo/SKILL.md',
    'skill://fuzz/fuzz-echo',
    'skill://fuzz/fuzz-echo/',
    'skill://fuzz/fuzz-echo/../../etc/passwd',
    'skill://fuzz/fuzz-echo/%2e%2e/SKILL.md',
    'skill://fuzz/fuzz-echo/%ZZ',
    'skill://fuzz/fuzz-echo/SKILL.md\u0000',
    'skill://',
    'skill:///',
    'file:///etc/passwd',
  ),
  fc.string({ maxLength: 200 }).map((tail) => `skill://firmware/${tail}`),
  fc.constant(`skill://x/${'a'.repeat(100_000)}`),
);

function params(targets) {
  return {
    initialize: fc.oneof(
      fc.record({
        protocolVersion: fc.oneof(fc.constantFrom('2025-11-25', '2025-03-26', '1999-01-01', MODERN, ''), wrongType),
        capabilities: fc.oneof(fc.constant({}), wrongType),
        clientInfo,
      }),
      wrongType,
    ),
    'tools/list': fc.oneof(
      fc.record({ cursor: fc.oneof(forgedCursor, wrongType) }),
      fc.record({ cursor: wrongType.filter((v) => typeof v !== 'string') }),
      wrongType,
      fc.constant(undefined),
    ),
    'tools/call': fc.oneof({ arbitrary: toolsCall(targets), weight: 5 }, wrongType, fc.constant(undefined)),
    ping: fc.oneof(fc.constant(undefined), wrongType),
    'notifications/initialized': fc.oneof(fc.constant(undefined), wrongType),
    'notifications/cancelled': fc.record({ requestId: wrongType, reason: hostileString }),
    'logging/setLevel': fc.record({ level: fc.oneof(hostileString, wrongType) }),
    'subscriptions/listen': wrongType,
    'server/discover': wrongType,
    // The MCP Skills extension (SEP-2640) and prompts: hostile URIs, names and cursors.
    'skills/list': fc.oneof(fc.record({ cursor: fc.oneof(forgedCursor, wrongType) }), wrongType, fc.constant(undefined)),
    'skills/get': fc.oneof(fc.record({ uri: fc.oneof(skillUri, hostileString, wrongType) }), wrongType),
    'resources/read': fc.oneof(fc.record({ uri: fc.oneof(skillUri, hostileString, wrongType) }), wrongType),
    'resources/directory/read': fc.oneof(
      fc.record({ uri: fc.oneof(skillUri, hostileString, wrongType), cursor: fc.oneof(forgedCursor, wrongType) }),
      wrongType,
    ),
    'resources/list': fc.oneof(fc.record({ cursor: fc.oneof(forgedCursor, wrongType) }), fc.constant(undefined)),
    'prompts/list': fc.oneof(fc.record({ cursor: fc.oneof(forgedCursor, wrongType) }), wrongType, fc.constant(undefined)),
    'prompts/get': fc.oneof(fc.record({ name: fc.oneof(hostileString, wrongType), arguments: wrongType }), wrongType),
  };
}

/** One JSON-RPC message; `modern` adds the 2026-07-28 per-request envelope (mangled at times). */
function message(targets, modern) {
  const byMethod = params(targets);
  const known = Object.keys(byMethod).map((method) => ({
    arbitrary: fc.tuple(fc.constant(method), byMethod[method]),
    weight: method === 'tools/call' ? 6 : method === 'tools/list' ? 4 : method === 'initialize' ? 2 : 1,
  }));
  const unknown = fc.tuple(
    fc.oneof(fc.constantFrom('resources/list', 'prompts/get', 'rpc.discover', '', '__proto__', 'tools/list '), hostileString, wrongType),
    wrongType,
  );
  const envelope = fc.oneof(
    { arbitrary: fc.constant({ [META.version]: MODERN, [META.info]: { name: 'fuzz', version: '1' }, [META.caps]: {} }), weight: 3 },
    fc.record({ [META.version]: fc.oneof(hostileString, wrongType), [META.info]: clientInfo, [META.caps]: wrongType }),
    wrongType,
  );
  return fc
    .tuple(fc.oneof({ arbitrary: fc.oneof(...known), weight: 5 }, unknown), id, jsonrpc, fc.boolean(), envelope)
    .map(([[method, p], messageId, version, asNotification, meta]) => {
      let withMeta = p;
      if (modern) withMeta = p && typeof p === 'object' && !Array.isArray(p) ? { ...p, _meta: meta } : { _meta: meta };
      const out = { jsonrpc: version, method, params: withMeta };
      if (!(asNotification && typeof method === 'string' && method.startsWith('notifications/'))) out.id = messageId;
      return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
    });
}

function payload(targets, modern) {
  const one = message(targets, modern);
  return fc.oneof(
    { arbitrary: one, weight: 16 },
    { arbitrary: fc.array(one, { maxLength: 6 }), weight: 4 },
    { arbitrary: fc.constant(Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }))), weight: 1 },
    { arbitrary: fc.constantFrom([[]], [[{ jsonrpc: '2.0', id: 1, method: 'ping' }]]), weight: 2 },
    { arbitrary: fc.record({ jsonrpc: fc.constant('2.0'), id, result: wrongType }), weight: 1 },
    { arbitrary: fc.record({ jsonrpc: fc.constant('2.0'), id, error: fc.record({ code: wrongType, message: wrongType }) }), weight: 1 },
  );
}

const filterQuery = fc.oneof(
  { arbitrary: fc.constant(''), weight: 6 },
  fc.constantFrom(
    '?phase=0',
    '?phase=4',
    '?phase=abc',
    '?phase=1.5',
    '?phase=%FF',
    '?tag=',
    '?zz=1',
    '?domain=%00',
    '?agent=' + 'a'.repeat(101),
  ),
  fc.array(hostileString, { minLength: 1, maxLength: 25 }).map((tags) => '?' + tags.map((t) => `tag=${encodeSegment(t)}`).join('&')),
  withNul.map((v) => `?domain=${encodeSegment(v)}`),
);

const mcpHeaders = fc.record({
  accept: fc.oneof(
    { arbitrary: fc.constant('application/json, text/event-stream'), weight: 8 },
    fc.constantFrom(undefined, 'application/json', 'text/event-stream', 'text/html', '*/*'),
  ),
  'mcp-protocol-version': fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 4 },
    { arbitrary: fc.constant('2025-11-25'), weight: 4 },
    fc.constantFrom(MODERN, 'junk', ''),
  ),
  origin: fc.oneof({ arbitrary: fc.constant(undefined), weight: 8 }, fc.constantFrom('http://evil.example', 'null', 'not a url', 'SAME')),
  host: fc.oneof({ arbitrary: fc.constant(undefined), weight: 10 }, fc.constantFrom('evil.example', 'localhost:1')),
});

const headerValue = (text) =>
  /^[\x20-\x7e]*$/.test(text) && text.trim() === text ? text : `=?base64?${Buffer.from(text).toString('base64')}?=`;

/**
 * The headers a 2026-07-28 request must carry (MCP-Protocol-Version, Mcp-Method, Mcp-Name for
 * tools/call), so that the request gets past the header checks to the method; sometimes broken.
 */
function modernHeaders(p) {
  const single = p && typeof p === 'object' && !Array.isArray(p);
  const name = single && p.params && typeof p.params === 'object' ? p.params.name : undefined;
  const standard = {
    'mcp-protocol-version': MODERN,
    ...(single && typeof p.method === 'string' ? { 'mcp-method': headerValue(p.method) } : {}),
    ...(typeof name === 'string' ? { 'mcp-name': headerValue(name) } : {}),
  };
  const keys = ['mcp-protocol-version', 'mcp-method', 'mcp-name'];
  return fc.oneof(
    { arbitrary: fc.constant(standard), weight: 6 },
    fc.constantFrom(...keys).map((key) => Object.fromEntries(Object.entries(standard).filter(([k]) => k !== key))),
    fc
      .tuple(fc.constantFrom(...keys), fc.constantFrom('=?base64?!!!?=', '=?base64?', 'tools/list', '', 'x'.repeat(300)))
      .map(([key, value]) => ({ ...standard, [key]: value })),
  );
}

/** Cases for /mcp. `session`: which pre-opened session to send on (admin/agent), a junk one, or none. */
export function mcpCases(targets, tokens) {
  const post = fc
    .tuple(
      fc.boolean().chain((modern) => payload(targets, modern).map((p) => ({ modern, p }))),
      fc.oneof({ arbitrary: fc.constantFrom('admin', 'agent'), weight: 6 }, fc.constantFrom('none', 'junk', 'long')),
      tokenArbitrary(tokens, 3),
      filterQuery,
      mcpHeaders,
    )
    .chain(([{ modern, p }, session, token, query, headers]) =>
      fc
        .tuple(
          fc.oneof(
            { arbitrary: fc.constant({ body: JSON.stringify(p), headers: { 'content-type': 'application/json' } }), weight: 3 },
            jsonBodyForms(p ?? {}, {}),
          ),
          modern ? modernHeaders(p) : fc.constant({}),
        )
        .map(([form, standard]) => ({
          transport: 'mcp',
          route: `POST /mcp ${describe(p)}${modern ? ' (2026)' : ''}`,
          method: 'POST',
          path: `/mcp${query}`,
          token,
          session: modern ? 'none' : session,
          headers: { ...stripUndefined(headers), ...form.headers, ...standard },
          body: form.body,
        })),
    );
  const other = fc
    .tuple(
      fc.constantFrom('GET', 'DELETE', 'PUT', 'PATCH'),
      fc.constantFrom('none', 'junk', 'long'),
      tokenArbitrary(tokens, 3),
      filterQuery,
      mcpHeaders,
      fc.option(hostileString.map(headerSafe)),
    )
    .map(([method, session, token, query, headers, lastEventId]) => ({
      transport: 'mcp',
      route: `${method} /mcp`,
      method,
      path: `/mcp${query}`,
      token,
      session,
      headers: { ...stripUndefined(headers), ...(lastEventId === null ? {} : { 'last-event-id': lastEventId }) },
      body: undefined,
    }));
  return {
    arbitrary: fc.oneof({ arbitrary: post, weight: 9 }, { arbitrary: other, weight: 1 }),
    operations: Object.keys(params(targets)).length,
  };
}

function describe(p) {
  if (Array.isArray(p)) return p.length > 10 ? 'batch (1000 pings)' : 'batch';
  if (p && typeof p === 'object')
    return KNOWN_METHODS.has(p.method) ? p.method : 'result' in p || 'error' in p ? 'response' : 'other method';
  return 'non-object';
}

const KNOWN_METHODS = new Set(Object.keys(params({ active: [{ name: 'x' }] })));
const stripUndefined = (object) => Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined));
