// REST cases derived from the registry's OpenAPI document (GET /docs-json): every path and method,
// every parameter by its location and schema, every request body by its schema, each mutated.
import fc from 'fast-check';
import { createBranchInvalidator, deprecateInvalidator, executeInvalidator, promoteInvalidator } from './invalid-bodies.mjs';
import { hostileHeaders, jsonBodyForms, safeBodyForms } from './http-forms.mjs';
import {
  badPercent,
  encodeSegment,
  forgedCursor,
  hostileString,
  hugeNumber,
  numberText,
  tokenArbitrary,
  withNul,
  wrongType,
} from './values.mjs';

/**
 * Where a valid request would change state: the route, and whether a given target (path
 * parameters) is one where it could succeed. Those targets only get bodies with an invalidator.
 */
function liveRules(targets) {
  const isRegistered = (p) => targets.registered.some((s) => s.name === p.name && s.version === p.version);
  const isActive = (p) => targets.active.some((s) => s.name === p.name);
  return {
    'POST /v1/admin/skills/{name}/versions/{version}/promote': { live: isRegistered, invalidator: promoteInvalidator, strict: true },
    'POST /v1/admin/skills/{name}/deprecate': { live: isActive, invalidator: deprecateInvalidator },
    'POST /v1/skills/{name}/executions': { live: isActive, invalidator: executeInvalidator },
    // Any valid name creates a branch, whatever the target.
    'POST /v1/twin/branches': { live: () => true, invalidator: createBranchInvalidator },
  };
}

/** Plausible values per property name, so that the one invalid field is not the only thing tested. */
function plausible(name, targets) {
  const names = [...targets.active, ...targets.registered].map((s) => s.name);
  switch (name) {
    case 'reason':
      return fc.constantFrom('fuzz', 'superseded');
    case 'force':
      return fc.boolean();
    case 'version':
      return fc.constantFrom('0.1.0', '1.0.0', '9.9.9');
    case 'successor':
      return fc.constantFrom(...names);
    case 'sunset':
      return fc.constantFrom('2999-01-01T00:00:00Z', new Date(Date.now() + 86_400_000).toISOString());
    case 'input':
      return fc.constantFrom({ text: 'ok' }, { signals: [] }, {});
    case 'session_id':
      return fc.constantFrom('s1', 'fuzz-session');
    case 'path':
      return hostileString;
    default:
      return hostileString;
  }
}

function resolve(doc, schema) {
  return schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
}

/** An object for a body schema: each property omitted, plausible, hostile or of a wrong type, plus unknown keys. */
function objectForSchema(schema, targets) {
  const entries = Object.keys(schema?.properties ?? {}).map((name) => [
    name,
    fc.option(fc.oneof({ arbitrary: plausible(name, targets), weight: 2 }, hostileString, wrongType), { nil: undefined }),
  ]);
  return fc
    .tuple(
      fc.record(Object.fromEntries(entries)),
      fc.oneof({ arbitrary: fc.constant({}), weight: 4 }, fc.dictionary(hostileString, wrongType, { maxKeys: 2 })),
    )
    .map(([body, extra]) => Object.fromEntries(Object.entries({ ...body, ...extra }).filter(([, value]) => value !== undefined)));
}

function pathParam(name, targets) {
  const versions = [...new Set([...targets.active, ...targets.registered].map((s) => s.version))];
  const known =
    {
      name: [fc.constantFrom(...targets.active.map((s) => s.name)), fc.constantFrom(...targets.registered.map((s) => s.name))],
      version: [fc.constantFrom(...versions)],
      id: targets.execution ? [fc.constant(targets.execution)] : [],
    }[name] ?? [];
  const plain = fc.oneof(
    ...known.map((arbitrary) => ({ arbitrary, weight: 3 })),
    { arbitrary: hostileString, weight: 3 },
    { arbitrary: fc.uuid(), weight: 1 },
  );
  return fc.oneof(
    { arbitrary: plain.map((value) => ({ value, encoded: encodeSegment(value) })), weight: 8 },
    { arbitrary: fc.tuple(plain, badPercent).map(([value, bad]) => ({ value: null, encoded: encodeSegment(value) + bad })), weight: 2 },
  );
}

/** A valid-looking value, so that the other parameters of a case often pass and one hostile value reaches its own check. */
function plausibleQuery(param) {
  const schema = param.schema ?? {};
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.type === 'number') return fc.constantFrom('1', '2', '10');
  if (param.name === 'status') return fc.constantFrom('QUEUED', 'SUCCEEDED');
  return fc.constantFrom('fuzz', 'fuzz_echo', 'echo', 's1');
}

function queryValue(param) {
  const schema = param.schema ?? {};
  const hostile =
    param.name === 'cursor'
      ? forgedCursor
      : schema.type === 'number'
        ? fc.oneof(hugeNumber.map(String), numberText, hostileString)
        : schema.enum
          ? fc.oneof(fc.constantFrom(...schema.enum.map((v) => v.toLowerCase()), 'UNKNOWN', 'ACTIVE ', ''), withNul, hostileString)
          : fc.oneof(hostileString, withNul);
  return fc.oneof({ arbitrary: hostile, weight: 3 }, { arbitrary: plausibleQuery(param), weight: 2 });
}

/** A query string: each parameter omitted, once, repeated (arrays up to 30, scalars twice), broken encoding, plus unknown ones. */
function queryString(params) {
  const parts = params.map((param) =>
    fc.option(
      fc.oneof(
        { arbitrary: queryValue(param).map((v) => [`${param.name}=${encodeSegment(v)}`]), weight: 5 },
        {
          arbitrary: fc
            .array(queryValue(param), { minLength: 2, maxLength: 30 })
            .map((vs) => vs.map((v) => `${param.name}=${encodeSegment(v)}`)),
          weight: 1,
        },
        { arbitrary: badPercent.map((bad) => [`${param.name}=${bad}`]), weight: 1 },
        { arbitrary: fc.constant([param.name]), weight: 1 },
      ),
      // Omitted half the time, so that one hostile parameter is often the only one and reaches its check.
      { nil: [], freq: 2 },
    ),
  );
  const unknown = fc.oneof(
    { arbitrary: fc.constant([]), weight: 4 },
    fc.constantFrom(['zz=1'], ['='], ['&&'], ['%FF=1'], ['__proto__[x]=1'], ['a[b]=c']),
  );
  return fc.tuple(...parts, unknown).map((lists) => {
    const query = lists.flat().join('&');
    return query ? `?${query}` : '';
  });
}

function operationCase(doc, template, method, op, targets, tokens) {
  const route = `${method.toUpperCase()} ${template}`;
  const parameters = op.parameters ?? [];
  const pathParams = parameters.filter((p) => p.in === 'path');
  const query = parameters.filter((p) => p.in === 'query');
  const headerParams = parameters.filter((p) => p.in === 'header');
  const bodySchema = resolve(doc, op.requestBody?.content?.['application/json']?.schema);
  const rule = liveRules(targets)[route];
  const admin = template.startsWith('/v1/admin');
  const paramsArb = fc.record(Object.fromEntries(pathParams.map((p) => [p.name, pathParam(p.name, targets)])));
  return fc
    .tuple(paramsArb, queryString(query), tokenArbitrary(tokens, admin ? 12 : 3), hostileHeaders(headerParams))
    .chain(([params, search, token, headers]) => {
      const values = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, v.value]));
      const live = rule ? rule.live(values) : false;
      const path = template.replace(/\{(\w+)\}/g, (_, name) => params[name].encoded) + search;
      const base = bodySchema ? objectForSchema(bodySchema, targets) : fc.constant(undefined);
      const body = live
        ? fc.tuple(base, rule.invalidator).chain(([object, invalidate]) => jsonBodyForms(invalidate(object ?? {}), { strict: rule.strict }))
        : fc.oneof(
            base.chain((object) => jsonBodyForms(object ?? {}, {})),
            safeBodyForms,
          );
      return body.map((form) => ({
        transport: 'rest',
        route,
        method: method.toUpperCase(),
        path,
        token,
        headers: { ...headers, ...form.headers },
        body: bodySchema || method !== 'get' || form.withGet ? form.body : undefined,
        live,
      }));
    });
}

/** Every operation of the OpenAPI document as one weighted arbitrary of REST cases. */
export function restCases(doc, targets, tokens) {
  const operations = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      // /mcp is fuzzed as JSON-RPC by mcp-cases.mjs; here it gets the HTTP-level mutations only.
      const weight = template === '/v1/admin/discover' || template === '/mcp' ? 1 : method === 'post' ? 6 : template.includes('{') ? 4 : 2;
      operations.push({ arbitrary: operationCase(doc, template, method, op, targets, tokens), weight });
    }
  }
  // Routes the document does not have: the 404 path must answer problem details too.
  const unknownRoute = fc
    .tuple(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'), hostileString, badPercent)
    .map(([method, segment, bad]) => ({
      transport: 'rest',
      route: `${method} (unknown route)`,
      method,
      path: `/v1/${encodeSegment(segment)}${bad}`,
      token: tokens.admin,
      headers: {},
      body: undefined,
      live: false,
    }));
  operations.push({ arbitrary: unknownRoute, weight: 2 });
  return { arbitrary: fc.oneof(...operations), operations: operations.length };
}
