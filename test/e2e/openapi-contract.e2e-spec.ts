import { mkdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { packPackageArchive, readPackageDir } from '#package-store/index.js';
import { ERROR_CATALOG } from '../../apps/registry/src/problem/error-catalog.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { obliterateQueue } from '../support/executions.js';
import { ADMIN_TOKEN, AGENT_TOKEN, PUBLISHER_TOKEN, startRegistry, type RunningRegistry } from '../support/registry.js';
import { REPO_ROOT, tempRoot, writeEchoSkill } from '../support/skill-packages.js';

// ajv-formats is CommonJS; under ESM its function is the default export's default.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => Ajv2020;

type Json = any;
interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: Json;
}
interface Send {
  params?: Record<string, string>;
  query?: string;
  token?: string | null;
  json?: unknown;
  body?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
}

const METRICS_TOKEN = 'test-metrics-token-0001';
const JSON_TYPES = new Set(['application/json', 'application/problem+json']);
const SLOW_HANDLER = `import { SkillBase } from '@skill-registry/sdk';
import { EchoInput, EchoOutput } from './schema.js';
export class EchoHandler extends SkillBase<typeof EchoInput, typeof EchoOutput> {
  static readonly inputSchema = EchoInput;
  static readonly outputSchema = EchoOutput;
  async execute(input: { text: string }) {
    if (input.text === 'slow') await new Promise((resolve) => setTimeout(resolve, 5000));
    return { text: input.text, length: input.text.length };
  }
}
`;

/**
 * The REST API against its OpenAPI document (GET /docs-json): every documented operation is called
 * for a success and at least one documented error, and every answer (status, media type, body, SSE
 * events) must be one the document describes, bodies validated with ajv against the response schema.
 * Every route Fastify serves must be documented. A presenter, route or error that drifts from the
 * document fails here.
 */
describe('OpenAPI contract', () => {
  let db: TestDatabase;
  let root: string;
  let outside: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  let doc: Json;
  let ajv: Ajv2020;
  const validators = new Map<string, ValidateFunction>();
  /** `METHOD /path/{template}` → statuses seen. */
  const seen = new Map<string, Set<number>>();
  const queuePrefix = `test-openapi-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase('openapi');
    root = await tempRoot();
    outside = await tempRoot('openapi-outside-');
    await writeEchoSkill(root);
    await writeEchoSkill(root, { name: 'echo_slow', handlerSource: SLOW_HANDLER });
    await writeEchoSkill(root, { name: 'echo_broken', definition: { input_schema: 'schema.Missing' } });
    registry = await startRegistry({
      databaseUrl: db.url,
      skillPaths: [root],
      agentTokens: true,
      queuePrefix,
      env: { METRICS_TOKEN },
    });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    const fetched = await fetch(`${registry.baseUrl}/docs-json`);
    doc = await fetched.json();
    // The document as validated here is what CI lints (redocly) and types (openapi-typescript).
    await mkdir(path.join(REPO_ROOT, 'dist'), { recursive: true });
    await writeFile(path.join(REPO_ROOT, 'dist/openapi.json'), JSON.stringify(doc, null, 2));
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, 'openapi', undefined, false);
  });

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
  const validatorAt = (pointer: string) => {
    let validate = validators.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `openapi#${pointer}` });
      validators.set(pointer, validate);
    }
    return validate;
  };
  const assertValid = (pointer: string, value: unknown, what: string) => {
    const validate = validatorAt(pointer);
    if (!validate(value)) {
      throw new Error(
        `${what} does not match ${pointer}:\n${JSON.stringify(validate.errors, null, 2)}\n${JSON.stringify(value).slice(0, 2000)}`,
      );
    }
  };

  /** Server-Sent Events of a finished stream: their `data`, parsed. */
  const sseData = (text: string) =>
    text
      .split('\n\n')
      .map((block) =>
        block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trim())
          .join('\n'),
      )
      .filter(Boolean)
      .map((data) => JSON.parse(data) as Json);

  /** Checks one answer against the operation's documented responses and records what was seen. */
  function check(method: string, template: string, answer: Answer): void {
    const operation = doc.paths[template]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${method} ${template} is not documented`);
    const key = `${method} ${template}`;
    seen.set(key, (seen.get(key) ?? new Set()).add(answer.status));
    const response = operation.responses[String(answer.status)];
    if (!response) {
      throw new Error(
        `${key} answered ${answer.status}, which is not documented (${Object.keys(operation.responses)}): ${answer.text.slice(0, 500)}`,
      );
    }
    const pointer = `/paths/${escape(template)}/${method.toLowerCase()}/responses/${answer.status}`;
    if (!response.content) {
      expect({ key, status: answer.status, body: answer.text }).toEqual({ key, status: answer.status, body: '' });
      return;
    }
    const mediaType = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const documented = response.content[mediaType] ? mediaType : response.content['*/*'] ? '*/*' : null;
    if (!documented) throw new Error(`${key} ${answer.status} answered ${mediaType}; documented: ${Object.keys(response.content)}`);
    const schemaPointer = `${pointer}/content/${escape(documented)}/schema`;
    if (JSON_TYPES.has(mediaType)) assertValid(schemaPointer, answer.body, `${key} ${answer.status} body`);
    if (mediaType === 'text/event-stream' && answer.text) {
      const dataRef: string | undefined = response.content[documented].schema['x-sse-data']?.$ref;
      expect(dataRef).toBeDefined();
      const events = sseData(answer.text);
      expect(events.length).toBeGreaterThan(0);
      for (const event of events) assertValid(dataRef!.slice(1), event, `${key} event`);
    }
  }

  async function send(method: string, template: string, options: Send = {}): Promise<Answer> {
    let url = template.replace(/\{(\w+)\}/g, (_match, name: string) => {
      const value = options.params?.[name];
      if (value === undefined) throw new Error(`no value for {${name}} of ${template}`);
      return name === 'path' ? value : encodeURIComponent(value);
    });
    if (options.query) url += `?${options.query}`;
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? AGENT_TOKEN : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | Buffer | undefined = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] = 'application/json';
    }
    if (options.contentType) headers['content-type'] = options.contentType;
    const response = await fetch(`${registry.baseUrl}${url}`, { method, headers, body });
    const text = await response.text();
    let parsed: Json = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    const answer = { status: response.status, headers: response.headers, text, body: parsed };
    check(method, template, answer);
    return answer;
  }

  /** A request with a Host header of our choosing (fetch does not let one set Host). */
  function rawRequest(method: string, url: string, headers: Record<string, string>, body?: string): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const request = http.request(`${registry.baseUrl}${url}`, { method, headers }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
          let parsed: Json = text;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            /* not JSON */
          }
          resolve({ status: response.statusCode ?? 0, headers: responseHeaders, text, body: parsed });
        });
      });
      request.on('error', reject);
      request.end(body);
    });
  }

  const operations = (): { method: string; template: string; operation: Json }[] =>
    Object.entries(doc.paths).flatMap(([template, item]) =>
      Object.entries(item as Record<string, Json>).map(([method, operation]) => ({ method: method.toUpperCase(), template, operation })),
    );
  const sampleParams: Record<string, string> = {
    name: 'echo_text',
    version: '1.0.0',
    id: '00000000-0000-4000-8000-000000000000',
    branch: 'main',
    revision: '1',
    path: 'SKILL.md',
  };
  const concrete = (template: string) => template.replace(/\{(\w+)\}/g, (_match, name: string) => sampleParams[name] ?? 'x');

  it('is an OpenAPI 3.1 document with servers, a licence, an opaque bearer scheme and security on every operation', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.license?.name).toBeTruthy();
    expect(doc.servers?.length).toBeGreaterThan(0);
    expect(doc.components.securitySchemes.bearer).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(doc.components.securitySchemes.bearer.bearerFormat).toBeUndefined();
    for (const { method, template, operation } of operations()) {
      expect({ op: `${method} ${template}`, security: Array.isArray(operation.security) }).toEqual({
        op: `${method} ${template}`,
        security: true,
      });
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        expect({ op: `${method} ${template} ${status}`, described: Boolean(response.description) }).toEqual({
          op: `${method} ${template} ${status}`,
          described: true,
        });
      }
      for (const parameter of operation.parameters ?? [])
        expect({ parameter: parameter.name, schema: parameter.schema }).not.toEqual({
          parameter: parameter.name,
          schema: {},
        });
    }
  });

  it('documents every route Fastify serves (HEAD and the documentation UI aside)', () => {
    const tree: string = registry.app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false });
    const stack: string[] = [];
    const served: string[] = [];
    for (const line of tree.split('\n')) {
      const at = line.search(/[├└]── /);
      if (at < 0) continue;
      const [, segment = '', methods = ''] = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(at + 4)) ?? [];
      stack.length = at / 4;
      stack.push(segment);
      const route = stack
        .join('')
        .replace(/\/:(\w+)/g, '/{$1}')
        .replace(/\/?\*$/, '/{path}');
      if (route.startsWith('/docs') || route.startsWith('/console')) continue; // the UIs: documentation, and the console's static files
      for (const method of methods.split(', ').filter((m) => m && m !== 'HEAD')) served.push(`${method} ${route}`);
    }
    const documented = operations().map(({ method, template }) => `${method} ${template}`);
    expect(served.length).toBeGreaterThan(30);
    expect(served.filter((route) => !documented.includes(route))).toEqual([]);
    expect(documented.filter((route) => !served.includes(route))).toEqual([]);
  });

  it("documents every problem code of the error mapper, each with the mapper's status", () => {
    const codeEnum = doc.components.schemas.ProblemDetails.properties.code.enum as string[];
    expect([...codeEnum].sort()).toEqual(Object.keys(ERROR_CATALOG).sort());
    // Examples exist for the codes some operation answers with; each carries the catalog's status.
    const examples = Object.entries(ERROR_CATALOG).filter(([code]) => doc.components.examples[code]);
    expect(examples.length).toBeGreaterThan(20);
    for (const [code, { http }] of examples) expect(doc.components.examples[code].value.status).toBe(http);
  });

  it('probes, health and metrics', async () => {
    expect((await send('GET', '/healthz', { token: null })).body).toEqual({ status: 'ok' });
    expect((await send('GET', '/healthz', { token: null, query: 'x=%00' })).status).toBe(400);
    expect((await send('GET', '/readyz', { token: null })).status).toBe(200);
    expect((await send('GET', '/readyz', { token: null, query: 'x=%00' })).status).toBe(400);
    const health = await send('GET', '/v1/health');
    expect(health.body.drafts).toEqual([expect.objectContaining({ name: 'echo_broken', first_error: expect.any(Object) })]);
    expect((await send('GET', '/v1/health', { token: null })).status).toBe(401);
    expect((await send('GET', '/metrics', { token: METRICS_TOKEN })).text).toContain('skill_registry_requests_total');
    expect((await send('GET', '/metrics', { token: AGENT_TOKEN })).status).toBe(401);
  });

  it('catalog reads, with conditional GETs where they send an ETag', async () => {
    const list = await send('GET', '/v1/skills');
    expect(list.body.items.map((item: Json) => item.name)).toEqual(['echo_broken', 'echo_slow', 'echo_text']);
    if (list.headers.get('etag')) {
      expect((await send('GET', '/v1/skills', { headers: { 'if-none-match': list.headers.get('etag')! } })).status).toBe(304);
    }
    expect((await send('GET', '/v1/skills', { query: 'limit=500' })).body.code).toBe('VALIDATION_FAILED');
    expect((await send('GET', '/v1/skills', { query: 'cursor=bm90LWEtY3Vyc29y' })).body.code).toBe('INVALID_CURSOR');
    const params = { name: 'echo_text', version: '1.0.0' };
    for (const template of ['/v1/skills/{name}', '/v1/skills/{name}/versions', '/v1/skills/{name}/versions/{version}']) {
      const ok = await send('GET', template, { params });
      expect(ok.status).toBe(200);
      const etag = ok.headers.get('etag');
      if (etag) expect((await send('GET', template, { params, headers: { 'if-none-match': etag } })).status).toBe(304);
      expect((await send('GET', template, { params: { name: 'no_such_skill', version: '1.0.0' } })).body.code).toBe('SKILL_NOT_FOUND');
    }
    expect((await send('GET', '/v1/skills/{name}/versions/{version}', { params: { name: 'echo_text', version: '9.9.9' } })).status).toBe(
      404,
    );
    const badUrl = await rawRequest('GET', '/v1/skills/%FF', { authorization: `Bearer ${AGENT_TOKEN}` });
    check('GET', '/v1/skills/{name}', badUrl);
    expect(badUrl.body.code).toBe('MALFORMED_URL');
    expect((await send('GET', '/v1/skills/{name}/history', { params })).body.items.length).toBeGreaterThan(0);
    expect((await send('GET', '/v1/skills/{name}/history', { params: { name: 'no_such_skill' } })).status).toBe(404);
    expect((await send('GET', '/v1/skills/{name}/dependents', { params })).body.items).toEqual([]);
    expect((await send('GET', '/v1/skills/{name}/dependents', { params: { name: 'no_such_skill' } })).status).toBe(404);
    expect((await send('GET', '/v1/skills/{name}/compatibility', { params, query: 'from=1.0.0&to=1.0.0' })).body.compatible).toBe(true);
    expect((await send('GET', '/v1/skills/{name}/compatibility', { params, query: 'from=1.0.0&to=2.0.0' })).status).toBe(404);
    expect((await send('GET', '/v1/skills/{name}/compatibility', { params, query: 'from=1.0.0' })).status).toBe(400);
    const search = await send('GET', '/v1/search', { query: 'q=echo&tag=test' });
    expect(search.body.total).toBeGreaterThan(0);
    const searchTag = search.headers.get('etag');
    if (searchTag)
      expect((await send('GET', '/v1/search', { query: 'q=echo&tag=test', headers: { 'if-none-match': searchTag } })).status).toBe(304);
    expect((await send('GET', '/v1/search')).status).toBe(400);
    // Search pages by cursor: the next page continues the same ranking.
    const firstHit = await send('GET', '/v1/search', { query: 'q=echo&limit=1' });
    expect(firstHit.body.next_cursor).toEqual(expect.any(String));
    const nextHit = await send('GET', '/v1/search', { query: `q=echo&limit=1&cursor=${firstHit.body.next_cursor}` });
    expect(nextHit.body.items[0].name).not.toBe(firstHit.body.items[0].name);
    expect((await send('GET', '/v1/search', { query: 'q=echo&cursor=bm90LWEtY3Vyc29y' })).body.code).toBe('INVALID_CURSOR');
    const facets = await send('GET', '/v1/facets', { query: 'tag=test' });
    expect(facets.body.facets.tag).toContainEqual({ value: 'test', count: facets.body.total });
    expect((await send('GET', '/v1/facets', { query: 'limit=5' })).body.code).toBe('VALIDATION_FAILED');
    expect((await send('GET', '/v1/access', { token: ADMIN_TOKEN, query: 'skill=echo_text' })).body).toMatchObject({
      role: 'admin',
      skill: { name: 'echo_text', may_publish: true, may_deprecate: true },
    });
    expect((await send('GET', '/v1/access', { query: 'skill=' })).body.code).toBe('VALIDATION_FAILED');
    expect((await send('GET', '/v1/tools')).body).toEqual({ items: [], adapters: [] });
    expect((await send('GET', '/v1/tools', { query: 'nope=1' })).status).toBe(400);
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const compat = await send('POST', '/v1/compatibility', { json: { old: schema, new: { ...schema, required: ['a'] } } });
    expect(compat.body.compatible).toBe(false);
    expect((await send('POST', '/v1/compatibility', { json: { old: { type: 'nope' }, new: schema } })).body.code).toBe('SCHEMA_INVALID');
    expect((await send('POST', '/v1/compatibility', { body: '{"old":', contentType: 'application/json' })).body.code).toBe(
      'MALFORMED_JSON',
    );
  });

  it('admin: discovery, registration, promotion on evidence and deprecation', async () => {
    const admin = { token: ADMIN_TOKEN };
    expect((await send('POST', '/v1/admin/discover', admin)).body.unchanged).toBeGreaterThan(0);
    expect((await send('POST', '/v1/admin/discover', { token: AGENT_TOKEN })).status).toBe(403);
    await writeEchoSkill(root, { name: 'echo_four' });
    expect((await send('POST', '/v1/admin/skills', { ...admin, json: { path: 'demo/echo_four' } })).status).toBe(201);
    expect((await send('POST', '/v1/admin/skills', { ...admin, json: { path: 'demo/echo_four' } })).body.outcome).toBe('unchanged');
    expect((await send('POST', '/v1/admin/skills', { ...admin, json: { path: 'demo/nothing_here' } })).body.code).toBe('PACKAGE_NOT_FOUND');
    expect((await send('POST', '/v1/admin/skills', { ...admin, json: { path: outside } })).body.code).toBe('PATH_OUTSIDE_SKILL_PATHS');
    expect((await send('POST', '/v1/admin/skills', { ...admin, json: { path: 'demo' } })).body.code).toBe('NOT_A_PACKAGE');
    expect((await send('POST', '/v1/admin/skills', { ...admin, json: { path: 'demo/echo_four', extra: 1 } })).status).toBe(400);
    const promote = '/v1/admin/skills/{name}/versions/{version}/promote';
    const promoted = await send('POST', promote, { ...admin, params: { name: 'echo_text', version: '1.0.0' }, json: {} });
    expect(promoted.body.status).toBe('ACTIVE');
    expect((await send('POST', promote, { ...admin, params: { name: 'echo_text', version: '1.0.0' }, json: {} })).body.code).toBe(
      'INVALID_TRANSITION',
    );
    expect((await send('POST', promote, { ...admin, params: { name: 'echo_slow', version: '1.0.0' }, json: {} })).status).toBe(200);
    expect((await send('POST', promote, { ...admin, params: { name: 'nothing', version: '1.0.0' }, json: {} })).status).toBe(404);
    const deprecate = '/v1/admin/skills/{name}/deprecate';
    expect((await send('POST', deprecate, { ...admin, params: { name: 'echo_four' }, json: { reason: 'x' } })).body.code).toBe(
      'INVALID_TRANSITION',
    );
    expect((await send('POST', deprecate, { token: PUBLISHER_TOKEN, params: { name: 'echo_slow' }, json: { reason: 'x' } })).status).toBe(
      403,
    );
    const deprecated = await send('POST', deprecate, {
      ...admin,
      params: { name: 'echo_slow' },
      json: { reason: 'use echo_text', successor: 'echo_text' },
    });
    expect(deprecated.body.items[0].deprecation.successor).toBe('echo_text');
    expect(deprecated.headers.get('deprecation')).toMatch(/^@\d+$/);
    // A2A agent cards, now that echo_text (agent demo) is ACTIVE.
    const registryCard = await send('GET', '/.well-known/agent-card.json');
    expect(registryCard.body.skills.map((skill: Json) => skill.id)).toEqual(['agent:demo']);
    expect(
      (await send('GET', '/.well-known/agent-card.json', { headers: { 'if-none-match': registryCard.headers.get('etag')! } })).status,
    ).toBe(304);
    const agentCard = await send('GET', '/v1/agents/{agent}/card', { params: { agent: 'demo' } });
    expect(agentCard.body.skills.map((skill: Json) => skill.id)).toEqual(['echo_text']);
    const current = { 'if-none-match': agentCard.headers.get('etag')! };
    expect((await send('GET', '/v1/agents/{agent}/card', { params: { agent: 'demo' }, headers: current })).status).toBe(304);
    expect((await send('GET', '/v1/agents/{agent}/card', { params: { agent: 'nobody' } })).body.code).toBe('AGENT_NOT_FOUND');
  });

  it('executions: 200 and 202, the event stream, listing, cancellation, twin access and usage', async () => {
    // After the admin test: echo_text is ACTIVE and echo_slow DEPRECATED, so both are tools.
    for (const format of ['mcp', 'openai', 'anthropic']) {
      expect((await send('GET', '/v1/tool-definitions', { query: `format=${format}` })).body.tools).toHaveLength(2);
    }
    expect((await send('GET', '/v1/tool-definitions', { query: 'format=langchain' })).status).toBe(400);
    const params = { name: 'echo_text' };
    const finished = await send('POST', '/v1/skills/{name}/executions', { params, query: 'wait=10', json: { input: { text: 'hi' } } });
    expect(finished.body).toMatchObject({ status: 'SUCCEEDED', output: { text: 'hi', length: 2 } });
    const queued = await send('POST', '/v1/skills/{name}/executions', { params: { name: 'echo_slow' }, json: { input: { text: 'slow' } } });
    expect(queued.status).toBe(202);
    expect(queued.headers.get('location')).toBe(`/v1/executions/${queued.body.id}`);
    expect(queued.headers.get('deprecation')).toMatch(/^@/);
    expect((await send('POST', '/v1/skills/{name}/executions', { params, json: { input: {} } })).body.code).toBe('INPUT_INVALID');
    expect((await send('POST', '/v1/skills/{name}/executions', { params: { name: 'nothing' }, json: { input: {} } })).status).toBe(404);
    expect(
      (await send('POST', '/v1/skills/{name}/executions', { params: { name: 'echo_four' }, json: { input: { text: 'x' } } })).body.code,
    ).toBe('SKILL_NOT_EXECUTABLE');
    const keyed = { params, headers: { 'idempotency-key': 'contract-1' } };
    await send('POST', '/v1/skills/{name}/executions', { ...keyed, json: { input: { text: 'a' } } });
    expect((await send('POST', '/v1/skills/{name}/executions', { ...keyed, json: { input: { text: 'b' } } })).body.code).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );
    const id = { id: finished.body.id };
    const unknown = { id: '00000000-0000-4000-8000-000000000000' };
    expect((await send('GET', '/v1/executions/{id}', { params: id })).body.id).toBe(id.id);
    expect((await send('GET', '/v1/executions/{id}', { params: unknown })).body.code).toBe('EXECUTION_NOT_FOUND');
    expect((await send('GET', '/v1/executions', { query: 'skill=echo_text&limit=1' })).body.next_cursor).toEqual(expect.any(String));
    expect((await send('GET', '/v1/executions', { query: 'cursor=bm90LWEtY3Vyc29y' })).body.code).toBe('INVALID_CURSOR');
    expect(
      (await send('GET', '/v1/executions', { query: `since=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}` })).body
        .items,
    ).toEqual([]);
    expect((await send('GET', '/v1/executions', { query: 'since=yesterday' })).body.code).toBe('VALIDATION_FAILED');
    const events = await send('GET', '/v1/executions/{id}/events', { params: id });
    expect(sseData(events.text).map((event) => event.type)).toEqual(['queued', 'started', 'succeeded']);
    expect((await send('GET', '/v1/executions/{id}/events', { params: unknown })).status).toBe(404);
    expect((await send('POST', '/v1/executions/{id}/cancel', { params: { id: queued.body.id } })).status).toBe(200);
    expect((await send('POST', '/v1/executions/{id}/cancel', { params: id })).body.code).toBe('EXECUTION_FINISHED');
    expect((await send('GET', '/v1/executions/{id}/twin', { params: id })).body).toMatchObject({ read: [], wrote: [], branch: 'main' });
    expect((await send('GET', '/v1/executions/{id}/twin', { params: unknown })).status).toBe(404);
    expect((await send('GET', '/v1/skills/{name}/usage', { params })).body.versions[0].windows['7d'].executions).toBeGreaterThan(0);
    expect((await send('GET', '/v1/skills/{name}/usage', { params: { name: 'nothing' } })).status).toBe(404);
  });

  it("the platform's event stream: every event kept (each a documented PlatformEvent), and its refusals", async () => {
    // The stream stays open: read until the execution events of the test before have come, then close it.
    const controller = new AbortController();
    const response = await fetch(`${registry.baseUrl}/v1/events?from=0`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      signal: controller.signal,
    });
    let text = '';
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      if (text.includes('event: run.completed') && text.includes('event: skill.lifecycle') && text.endsWith('\n\n')) break;
    }
    controller.abort();
    check('GET', '/v1/events', { status: response.status, headers: response.headers, text, body: null });
    expect(sseData(text).map((event) => event.type)).toEqual(
      expect.arrayContaining(['skill.lifecycle', 'run.queued', 'run.started', 'run.completed']),
    );
    expect((await send('GET', '/v1/events', { token: ADMIN_TOKEN, query: 'type=nothing' })).body.code).toBe('VALIDATION_FAILED');
    expect((await send('GET', '/v1/events', { token: AGENT_TOKEN })).status).toBe(403);
  });

  it('package store: files, one file, the archive (with 304s), and publishing', async () => {
    const params = { name: 'echo_text', version: '1.0.0', path: 'SKILL.md' };
    const files = await send('GET', '/v1/skills/{name}/versions/{version}/files', { params });
    expect(files.body.files.map((file: Json) => file.path)).toContain('SKILL.md');
    expect((await send('GET', '/v1/skills/{name}/versions/{version}/files', { params: { ...params, version: '9.9.9' } })).status).toBe(404);
    const file = await send('GET', '/v1/skills/{name}/versions/{version}/files/{path}', { params });
    expect(file.text).toContain('# echo_text');
    const fileTag = file.headers.get('etag')!;
    expect(
      (await send('GET', '/v1/skills/{name}/versions/{version}/files/{path}', { params, headers: { 'if-none-match': fileTag } })).status,
    ).toBe(304);
    expect(
      (await send('GET', '/v1/skills/{name}/versions/{version}/files/{path}', { params: { ...params, path: 'nope.md' } })).body.code,
    ).toBe('PACKAGE_FILE_NOT_FOUND');
    const archive = await send('GET', '/v1/skills/{name}/versions/{version}/package', { params });
    expect(archive.headers.get('content-type')).toBe('application/gzip');
    const archiveTag = archive.headers.get('etag')!;
    expect(
      (await send('GET', '/v1/skills/{name}/versions/{version}/package', { params, headers: { 'if-none-match': archiveTag } })).status,
    ).toBe(304);
    expect((await send('GET', '/v1/skills/{name}/versions/{version}/package', { params: { ...params, name: 'nothing' } })).status).toBe(
      404,
    );

    const dir = await writeEchoSkill(outside, { name: 'acme_echo', domain: 'acme' });
    const gzip = await packPackageArchive(await readPackageDir(dir));
    const publish = (options: Send) =>
      send('POST', '/v1/packages', { token: PUBLISHER_TOKEN, contentType: 'application/gzip', ...options });
    expect((await publish({ body: gzip, query: 'dry_run=true' })).body.outcome).toBe('valid');
    expect((await publish({ body: gzip })).status).toBe(201);
    expect((await publish({ body: gzip })).body.outcome).toBe('unchanged');
    expect((await publish({ body: Buffer.from('not a gzip archive') })).body.code).toBe('ARCHIVE_REJECTED');
    expect((await publish({ body: gzip, token: AGENT_TOKEN })).status).toBe(403);
    expect((await publish({ body: gzip, query: 'dry_run=maybe' })).status).toBe(400);
  });

  it('digital twin: branches, work products, revisions, content (with 304), constraints and provenance', async () => {
    expect((await send('POST', '/v1/twin/branches', { json: { name: 'contract' } })).status).toBe(201);
    expect((await send('POST', '/v1/twin/branches', { json: { name: 'contract' } })).body.code).toBe('TWIN_BRANCH_EXISTS');
    expect((await send('POST', '/v1/twin/branches', { json: { name: 'other', from: 'nowhere' } })).status).toBe(404);
    expect((await send('GET', '/v1/twin/branches', { query: 'limit=10' })).body.items.length).toBeGreaterThan(0);
    expect((await send('GET', '/v1/twin/branches', { query: 'include_promotion=maybe' })).status).toBe(400);
    const branch = { branch: 'contract' };
    expect((await send('GET', '/v1/twin/branches/{branch}', { params: branch })).body.name).toBe('contract');
    expect((await send('GET', '/v1/twin/branches/{branch}', { params: { branch: 'nowhere' } })).body.code).toBe('TWIN_BRANCH_NOT_FOUND');
    const products = '/v1/twin/branches/{branch}/work-products';
    const created = await send('POST', products, {
      params: branch,
      query: 'kind=netlist&name=divider&metadata=%7B%22v%22%3A1%7D',
      body: 'R1 in out 1k',
      contentType: 'text/plain',
    });
    expect(created.status).toBe(201);
    expect(
      (
        await send('POST', products, {
          params: branch,
          query: 'kind=netlist&name=x',
          body: 'a=b',
          contentType: 'application/x-www-form-urlencoded',
        })
      ).status,
    ).toBe(415);
    expect((await send('GET', products, { params: branch, query: 'kind=netlist' })).body.items).toHaveLength(1);
    expect((await send('GET', products, { params: { branch: 'nowhere' } })).status).toBe(404);
    const product = { ...branch, id: created.body.id as string };
    const one = `${products}/{id}`;
    expect((await send('GET', one, { params: product })).body.current.revision).toBe(1);
    expect((await send('GET', one, { params: { ...product, id: '00000000-0000-4000-8000-000000000000' } })).body.code).toBe(
      'WORK_PRODUCT_NOT_FOUND',
    );
    const revise = (body: string) => send('POST', `${one}/revisions`, { params: product, body, contentType: 'text/plain' });
    expect((await revise('R1 in out 2k')).status).toBe(201);
    expect((await revise('R1 in out 2k')).status).toBe(200);
    expect(
      (
        await send('POST', `${one}/revisions`, {
          params: { ...product, id: '00000000-0000-4000-8000-000000000000' },
          body: 'x',
          contentType: 'text/plain',
        })
      ).status,
    ).toBe(404);
    expect((await send('GET', `${one}/revisions`, { params: product })).body.items).toHaveLength(2);
    expect((await send('GET', `${one}/revisions`, { params: { ...product, id: '00000000-0000-4000-8000-000000000000' } })).status).toBe(
      404,
    );
    const content = await send('GET', `${one}/content`, { params: product });
    expect(content.text).toBe('R1 in out 2k');
    expect(
      (await send('GET', `${one}/content`, { params: product, headers: { 'if-none-match': content.headers.get('etag')! } })).status,
    ).toBe(304);
    expect((await send('GET', `${one}/content`, { params: product, query: 'revision=7' })).body.code).toBe('REVISION_NOT_FOUND');
    const constraints = { constraints: [{ kind: 'max_elements', max_elements: 1000 }] };
    expect((await send('PUT', `${one}/constraints`, { params: product, json: constraints })).body.revision).toBe(1);
    expect((await send('PUT', `${one}/constraints`, { params: product, json: { constraints: [{ kind: 'max_elements' }] } })).status).toBe(
      400,
    );
    expect((await send('GET', `${one}/constraints`, { params: product })).body.constraints).toEqual(constraints.constraints);
    expect((await send('GET', `${one}/constraints`, { params: { ...product, id: '00000000-0000-4000-8000-000000000000' } })).status).toBe(
      404,
    );
    const provenance = '/v1/twin/work-products/{id}/revisions/{revision}/provenance';
    expect((await send('GET', provenance, { params: { id: product.id, revision: '1' } })).body.written_by.identity).toBe('bot');
    expect((await send('GET', provenance, { params: { id: product.id, revision: '99' } })).status).toBe(404);
    expect((await send('POST', `${one}/archive`, { params: product })).body.archived).toBe(true);
    expect((await send('POST', `${one}/archive`, { params: product })).status).toBe(404);
    // Archived: listed with archived=true, readable by number, restored by a revision (the JSON form here).
    expect((await send('GET', products, { params: branch, query: 'archived=true' })).body.items.map((item: Json) => item.id)).toEqual([
      product.id,
    ]);
    expect((await send('GET', products, { params: branch, query: 'archived=maybe' })).status).toBe(400);
    expect((await send('GET', `${one}/content`, { params: product, query: 'revision=1' })).text).toBe('R1 in out 1k');
    expect((await send('GET', `${one}/content`, { params: product })).body.code).toBe('WORK_PRODUCT_NOT_FOUND');
    const form = 'application/vnd.skill-registry.twin-upload+json';
    const restored = await send('POST', `${one}/revisions`, {
      params: product,
      body: JSON.stringify({ media_type: 'text/plain', content: 'R1 in out 3k', metadata: { v: 3 } }),
      contentType: form,
    });
    expect(restored.body.current).toMatchObject({ revision: 4, metadata: { v: 3 } });
    expect(
      (await send('POST', `${one}/revisions`, { params: product, body: '{"media_type":"text/plain","media_type":"x"}', contentType: form }))
        .body.code,
    ).toBe('MALFORMED_JSON');
    const formed = await send('POST', products, {
      params: branch,
      body: JSON.stringify({ kind: 'netlist', name: 'formed', media_type: 'text/plain', content_base64: 'UjEgYSBiIDFr' }),
      contentType: form,
    });
    expect(formed.status).toBe(201);
    const headed = await send('POST', products, {
      params: branch,
      query: 'kind=netlist&name=headed',
      body: 'R1 a b 1k',
      contentType: 'text/plain',
      headers: { 'x-twin-metadata': '{"v":1}' },
    });
    expect(headed.body.current.metadata).toEqual({ v: 1 });
  });

  it('MCP: initialize (200), a notification (202), the session stream, the end of the session, and its errors', async () => {
    const accept = { accept: 'application/json, text/event-stream' };
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'contract', version: '1' } },
    };
    const opened = await send('POST', '/mcp', { headers: accept, json: initialize });
    expect(opened.status).toBe(200);
    const session = { ...accept, 'mcp-session-id': opened.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
    expect((await send('POST', '/mcp', { headers: session, json: { jsonrpc: '2.0', method: 'notifications/initialized' } })).status).toBe(
      202,
    );
    expect((await send('POST', '/mcp', { headers: session, json: { jsonrpc: '2.0', id: 2, method: 'tools/list' } })).status).toBe(200);
    expect((await send('POST', '/mcp', { headers: accept, query: 'phase=9', json: initialize })).body.code).toBe('VALIDATION_FAILED');
    const list = { jsonrpc: '2.0', id: 3, method: 'tools/list' };
    expect((await send('POST', '/mcp', { headers: { ...accept, 'mcp-session-id': 'nope' }, json: list })).status).toBe(404);
    expect((await send('POST', '/mcp', { json: initialize })).status).toBe(406);
    const fromPage = { ...accept, origin: 'https://attacker.example' };
    expect((await send('POST', '/mcp', { headers: fromPage, json: initialize })).body.code).toBe('ORIGIN_NOT_ALLOWED');
    expect((await send('POST', '/mcp', { headers: accept, body: '{', contentType: 'application/json' })).body.error.code).toBe(-32700);
    // The session stream stays open: its status and media type are checked, then it is closed.
    const controller = new AbortController();
    const stream = await fetch(`${registry.baseUrl}/mcp`, {
      headers: { ...session, accept: 'text/event-stream', authorization: `Bearer ${AGENT_TOKEN}` },
      signal: controller.signal,
    });
    check('GET', '/mcp', { status: stream.status, headers: stream.headers, text: '', body: null });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    controller.abort();
    expect((await send('GET', '/mcp', { headers: { accept: 'text/event-stream' } })).status).toBe(400);
    expect((await send('DELETE', '/mcp', { headers: session })).status).toBe(200);
    expect((await send('DELETE', '/mcp', { headers: session })).status).toBe(404);
  });

  it('every operation answers 401 without a token where it needs one, and 403 HOST_NOT_ALLOWED to a foreign Host', async () => {
    for (const { method, template, operation } of operations()) {
      const json = operation.requestBody?.content?.['application/json'] ? '{}' : undefined;
      const headers: Record<string, string> = json ? { 'content-type': 'application/json' } : {};
      if (template === '/mcp') headers.accept = 'application/json, text/event-stream';
      if (operation.security.length > 0) {
        const answer = await rawRequest(method, concrete(template), headers, json);
        check(method, template, answer);
        expect({ op: `${method} ${template}`, status: answer.status }).toEqual({ op: `${method} ${template}`, status: 401 });
      }
      if (template !== '/healthz' && template !== '/readyz') {
        const answer = await rawRequest(method, concrete(template), { ...headers, host: 'rebind.attacker.example' }, json);
        check(method, template, answer);
        expect({ op: `${method} ${template}`, code: answer.body?.code }).toEqual({ op: `${method} ${template}`, code: 'HOST_NOT_ALLOWED' });
      }
    }
  });

  it('covered every documented operation with a success and an error', () => {
    const missing = operations().flatMap(({ method, template }) => {
      const statuses = [...(seen.get(`${method} ${template}`) ?? [])];
      const gaps = [];
      if (!statuses.some((status) => status < 400)) gaps.push(`${method} ${template}: no success`);
      if (!statuses.some((status) => status >= 400)) gaps.push(`${method} ${template}: no error`);
      return gaps;
    });
    expect(missing).toEqual([]);
  });
});
