import { rm } from 'node:fs/promises';
import net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { bearer, failure, grpcPort, registryClient, unary, type RegistryClient } from '../support/grpc.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';
import { obliterateQueue } from '../support/executions.js';

/** Raw protobuf: a length-delimited field, enough to hand-craft what a well-behaved client never sends. */
const field = (number: number, bytes: Buffer) => Buffer.concat([Buffer.from([(number << 3) | 2, bytes.length]), bytes]);
const varintField = (number: number, value: number) => Buffer.from([number << 3, value]);

/** Regression tests of the client mistakes that answered 5xx, hung, or were accepted (issue 9). */
describe('hostile input on every transport', () => {
  const queuePrefix = `test-hostile-${process.pid}-${Date.now()}`;
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  let client: RegistryClient;
  let raw: grpc.Client;
  let snapshot: () => Promise<string>;

  beforeAll(async () => {
    db = await createTestDatabase('hostile');
    root = await tempRoot();
    await writeEchoSkill(root);
    // A publisher's schema with a pattern that backtracks exponentially (zod's regex becomes the JSON Schema's pattern).
    await writeEchoSkill(root, {
      name: 'match_words',
      schemaSource: `import { z } from '@skill-registry/sdk';
export const EchoInput = z.object({ text: z.string().regex(/^(\\w+\\s?)*$/).describe('Words') }).strict();
export const EchoOutput = z.object({ text: z.string().describe('The same text'), length: z.number().int().describe('Length') });
`,
    });
    // The same with a lookahead in front: V8's linear-time engine cannot run it, so registration refuses it.
    await writeEchoSkill(root, {
      name: 'lookahead_words',
      schemaSource: `import { z } from '@skill-registry/sdk';
export const EchoInput = z.object({ text: z.string().regex(/^(?=\\w)(\\w+\\s?)*$/).describe('Words') }).strict();
export const EchoOutput = z.object({ text: z.string().describe('The same text'), length: z.number().int().describe('Length') });
`,
    });
    // A publisher's uniqueItems over objects (zod's meta goes into the JSON Schema as it is).
    await writeEchoSkill(root, {
      name: 'unique_tags',
      schemaSource: `import { z } from '@skill-registry/sdk';
export const EchoInput = z
  .object({
    text: z.string().describe('Text'),
    tags: z.array(z.object({ k: z.number().describe('Key') })).meta({ uniqueItems: true }).optional().describe('Tags'),
  })
  .strict();
export const EchoOutput = z.object({ text: z.string().describe('The same text'), length: z.number().int().describe('Length') });
`,
    });
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root], queuePrefix });
    client = registryClient(grpcPort(registry));
    raw = new grpc.Client(`127.0.0.1:${grpcPort(registry)}`, grpc.credentials.createInsecure());
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    snapshot = async () => {
      const rows = await pool.query(
        `SELECT (SELECT count(*) FROM skills) || '/' || (SELECT count(*) FROM skill_versions) || '/' ||
                (SELECT count(*) FROM lifecycle_events) || '/' || (SELECT count(*) FROM executions) || '/' || (SELECT count(*) FROM twin_branches) ||
                '/' || (SELECT string_agg(status::text || lock_version, ',' ORDER BY id) FROM skill_versions) AS state`,
      );
      return rows.rows[0].state as string;
    };
    afterAllPool = pool;
  });
  let afterAllPool: pg.Pool;

  afterAll(async () => {
    client?.close();
    raw?.close();
    await afterAllPool?.end();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const post = (path: string, rawBody: string | Buffer, headers: Record<string, string> = admin) =>
    fetch(`${registry.baseUrl}${path}`, { method: 'POST', headers, body: rawBody }).then(async (response) => ({
      status: response.status,
      type: response.headers.get('content-type'),
      body: (await response.json()) as any,
    }));

  // The pattern runs in the registry's process on the caller's input: on the backtracking engine alone, 40 word
  // characters and a '!' would hold its event loop for hours, and every other request with it.
  it("refuses input that would make a publisher's pattern backtrack for ever, at once, while other requests are served", async () => {
    const promoted = await post('/v1/admin/skills/match_words/versions/1.0.0/promote', JSON.stringify({ force: true, reason: 'test' }));
    expect(promoted.status).toBe(200);
    const before = await snapshot();
    const hostile = 'a'.repeat(5000) + '!';
    const [refused, health] = await Promise.all([
      post('/v1/skills/match_words/executions', JSON.stringify({ input: { text: hostile } })),
      fetch(`${registry.baseUrl}/healthz`).then((response) => response.status),
    ]);
    expect(refused).toMatchObject({ status: 422, type: expect.stringContaining('application/problem+json') });
    expect(JSON.stringify(refused.body.errors ?? refused.body)).toContain('must match pattern');
    expect(health).toBe(200);
    expect(await snapshot()).toBe(before);
  });

  // Ajv compared every item of an array of objects with every other: 80,000 distinct tags (about 900 KB, under the
  // 1 MiB limit) whose first two are equal held the registry's event loop for minutes.
  it('refuses duplicate items in a large array at once, while other requests are served', async () => {
    const promoted = await post('/v1/admin/skills/unique_tags/versions/1.0.0/promote', JSON.stringify({ force: true, reason: 'test' }));
    expect(promoted.status).toBe(200);
    const before = await snapshot();
    const tags = [{ k: 0 }, ...Array.from({ length: 80_000 }, (_, index) => ({ k: index }))];
    const [refused, health] = await Promise.all([
      post('/v1/skills/unique_tags/executions', JSON.stringify({ input: { text: 'x', tags } })),
      fetch(`${registry.baseUrl}/healthz`).then((response) => response.status),
    ]);
    expect(refused).toMatchObject({ status: 422, type: expect.stringContaining('application/problem+json') });
    expect(JSON.stringify(refused.body.errors)).toContain('must NOT have duplicate items (items ## 0 and 1 are identical)');
    expect(health).toBe(200);
    // 80,001 wrong items: too many to look for every violation (each would be an error object in the registry's heap).
    const wrong = await post(
      '/v1/skills/unique_tags/executions',
      JSON.stringify({ input: { text: 'x', tags: tags.map(() => ({ k: 'x' })) } }),
    );
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual([
      { pointer: '/tags/0/k', message: 'must be number' },
      { pointer: '/', message: 'only the first violation is listed: the document is too large to look for every one' },
    ]);
    expect(await snapshot()).toBe(before);
  });

  it('keeps a package whose pattern V8 cannot run in linear time and that backtracks exponentially a DRAFT, naming it', async () => {
    const version = await call(registry.baseUrl, 'GET', '/v1/skills/lookahead_words/versions/1.0.0', { token: ADMIN_TOKEN });
    expect(version.body.status).toBe('DRAFT');
    expect(JSON.stringify(version.body)).toContain('is not safe to run on callers');
    expect(JSON.stringify(version.body)).toContain('exponential time');
  });

  it('refuses NUL characters and lone surrogates in query parameters, bodies and session ids with 400 naming the field', async () => {
    const before = await snapshot();
    const query = await call(registry.baseUrl, 'GET', '/v1/executions?session_id=a%00b');
    expect(query).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED', errors: [{ field: 'session_id' }] } });
    const search = await call(registry.baseUrl, 'GET', '/v1/skills?q=%00');
    expect(search.status).toBe(400);
    const reason = await post('/v1/admin/skills/echo_text/deprecate', '{"reason":"a\\u0000b"}');
    expect(reason).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED', errors: [{ field: '/reason' }] } });
    const session = await post('/v1/skills/echo_text/executions', '{"input":{"text":"x"},"session_id":"\\ud800"}');
    expect(session).toMatchObject({ status: 400, body: { errors: [{ field: '/session_id' }] } });
    const inputKey = await post('/v1/skills/echo_text/executions', '{"input":{"te\\u0000xt":"x"}}');
    expect(inputKey.status).toBe(400);
    expect(await snapshot()).toBe(before);
  });

  it('refuses invalid UTF-8, duplicated keys, prototype keys and 10,000-level nesting as MALFORMED_JSON, changing nothing', async () => {
    const before = await snapshot();
    const invalidUtf8 = Buffer.concat([Buffer.from('{"reason":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    expect(await post('/v1/admin/skills/echo_text/deprecate', invalidUtf8)).toMatchObject({
      status: 400,
      body: { code: 'MALFORMED_JSON' },
    });
    const duplicated = await post('/v1/admin/skills/echo_text/deprecate', '{"reason":"one","reason":"two"}');
    expect(duplicated).toMatchObject({ status: 400, body: { code: 'MALFORMED_JSON' } });
    expect(duplicated.body.detail).toContain("duplicate key 'reason'");
    expect((await post('/v1/skills/echo_text/executions', '{"input":{"__proto__":{"x":1}}}')).status).toBe(400);
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const promote = await post('/v1/admin/skills/echo_text/versions/1.0.0/promote', deep);
    expect(promote).toMatchObject({ status: 400, type: 'application/problem+json; charset=utf-8', body: { code: 'MALFORMED_JSON' } });
    const mcp = await post('/mcp', '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000), {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    });
    expect(mcp).toMatchObject({ status: 400, body: { jsonrpc: '2.0', error: { code: -32700 } } });
    expect(await snapshot()).toBe(before);
  });

  it('refuses a null, array or scalar body where an object is expected (a null promote body does not promote)', async () => {
    const before = await snapshot();
    for (const body of ['null', '[]', '"x"', '42']) {
      const answer = await post('/v1/admin/skills/echo_text/versions/1.0.0/promote', body);
      expect(answer).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED', errors: [{ field: 'body' }] } });
    }
    expect(await snapshot()).toBe(before);
    expect((await call(registry.baseUrl, 'GET', '/v1/skills/echo_text')).body.status).toBe('REGISTERED');
  });

  it('refuses body fields named like Object.prototype members and null optional fields (both deprecated the skill)', async () => {
    await call(registry.baseUrl, 'POST', '/v1/admin/skills/echo_text/versions/1.0.0/promote', {
      token: ADMIN_TOKEN,
      body: { force: true, reason: 'fixture' },
    });
    const before = await snapshot();
    for (const key of ['constructor', 'toString', 'hasOwnProperty']) {
      const answer = await post('/v1/admin/skills/echo_text/deprecate', JSON.stringify({ reason: 'superseded', [key]: 5 }));
      expect({ key, status: answer.status, field: answer.body.errors?.[0]?.field }).toEqual({ key, status: 400, field: key });
    }
    // null for an optional field is not "absent": `"version": null` deprecated every version.
    for (const key of ['version', 'successor', 'sunset']) {
      const answer = await post('/v1/admin/skills/echo_text/deprecate', JSON.stringify({ reason: 'superseded', [key]: null }));
      expect({ key, status: answer.status, field: answer.body.errors?.[0]?.field }).toEqual({ key, status: 400, field: key });
    }
    expect(await snapshot()).toBe(before);
  });

  /** Sends `head` then `bodyBytes` bytes then `next` on one connection; what came back until it closed or went quiet. */
  const exchange = (head: string, bodyBytes: number, next: string) =>
    new Promise<string>((resolve) => {
      const socket = net.connect(Number(new URL(registry.baseUrl).port), '127.0.0.1');
      let answer = '';
      let quiet: NodeJS.Timeout | undefined;
      const finish = () => {
        socket.destroy();
        resolve(answer);
      };
      socket.on('data', (chunk) => {
        answer += chunk.toString('latin1');
        clearTimeout(quiet);
        quiet = setTimeout(finish, 500);
      });
      socket.on('error', finish);
      socket.on('close', finish);
      socket.write(head);
      const chunk = Buffer.alloc(64 * 1024, 'p');
      let left = bodyBytes;
      const pump = () => {
        while (left > 0) {
          const size = Math.min(left, chunk.length);
          left -= size;
          if (!socket.write(chunk.subarray(0, size))) return void socket.once('drain', pump);
        }
        socket.write(next);
      };
      pump();
    });

  it('answers a JSON body over the limit with 413 after reading it, so the client reads the answer and the connection serves the next request', async () => {
    const before = await snapshot();
    const size = 1200 * 1024;
    const head = (length: number) =>
      `POST /v1/skills/echo_text/executions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    const next = 'GET /v1/skills/echo_text HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    const answer = await exchange(head(size), size, next);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('PAYLOAD_TOO_LARGE');
    expect(answer).not.toMatch(/\r\nconnection: close\r\n/i);
    // The body was read to its end, and the request after it on the same connection is answered.
    expect(answer).toMatch(/\r\n\r\n[\s\S]*HTTP\/1\.1 200 [\s\S]*"name":"echo_text"/);
    // Far over the limit, the body is not read: 413, and the connection is closed.
    const huge = 64 * 1024 * 1024;
    const refused = await exchange(head(huge), 256 * 1024, '');
    expect(refused).toMatch(/^HTTP\/1\.1 413 /);
    expect(refused).toMatch(/\r\nconnection: close\r\n/i);
    expect(await snapshot()).toBe(before);
  });

  it('answers a malformed URL and a forged executions cursor with problem details, not 5xx', async () => {
    const url = await call(registry.baseUrl, 'GET', '/v1/skills/%FF');
    expect(url).toMatchObject({ status: 400, body: { code: 'MALFORMED_URL' } });
    expect(url.headers.get('content-type')).toContain('application/problem+json');
    const forged = Buffer.from(JSON.stringify({ v: 1, after: '2026-01-01T00:00:00.000Z|not-a-uuid' })).toString('base64url');
    expect(await call(registry.baseUrl, 'GET', `/v1/executions?cursor=${forged}`)).toMatchObject({
      status: 400,
      body: { code: 'INVALID_CURSOR' },
    });
  });

  it('refuses to register a domain folder or a root as a package (422 NOT_A_PACKAGE), storing nothing', async () => {
    const before = await snapshot();
    for (const path of ['demo', root]) {
      const answer = await post('/v1/admin/skills', JSON.stringify({ path }));
      expect(answer).toMatchObject({ status: 422, body: { code: 'NOT_A_PACKAGE' } });
    }
    const grpcAnswer = await failure(unary(client, 'RegisterSkill', { path: 'demo' }, bearer(ADMIN_TOKEN)));
    expect(grpcAnswer).toMatchObject({ code: grpc.status.INVALID_ARGUMENT, errorCode: 'NOT_A_PACKAGE' });
    expect(await snapshot()).toBe(before);
  });

  it('gRPC: a 100 KB string answers NOT_FOUND at once and the connection keeps serving other calls', async () => {
    const long = 'n'.repeat(100_000);
    const started = Date.now();
    const answers = await Promise.all([
      failure(unary(client, 'GetSkill', { name: long })),
      failure(unary(client, 'GetHistory', { name: long })),
      failure(unary(client, 'GetUsage', { name: long })),
      unary(client, 'GetSkill', { name: 'echo_text' }),
    ]);
    expect(Date.now() - started).toBeLessThan(15_000); // none of them hangs
    expect(answers.slice(0, 3).map((answer) => (answer as { code: number }).code)).toEqual([5, 5, 5]);
    expect((answers[3] as { response: { skill: { name: string } } }).response.skill.name).toBe('echo_text');
  });

  it('gRPC: undecodable bytes, invalid UTF-8, NUL, unknown enum numbers and out-of-range Timestamps are INVALID_ARGUMENT', async () => {
    const before = await snapshot();
    const send = (method: string, bytes: Buffer, metadata = new grpc.Metadata()) =>
      new Promise<grpc.ServiceError | null>((resolve) =>
        raw.makeUnaryRequest(
          method.includes('/') ? method : `/skillregistry.v1.SkillRegistry/${method}`,
          (value: Buffer) => value,
          (value: Buffer) => value,
          bytes,
          metadata,
          { deadline: Date.now() + 10_000 },
          (error) => resolve(error),
        ),
      );
    const cases: [string, Buffer, grpc.Metadata?][] = [
      ['GetSkill', Buffer.from([0x0a, 0xff])], // a length running past the end
      ['GetSkill', field(1, Buffer.from([0xff, 0xfe]))], // name: invalid UTF-8
      ['GetSkill', field(1, Buffer.from('a\u0000b'))], // name with NUL
      ['ListSkills', varintField(4, 77)], // status: not in the enum
      ['ListExecutions', varintField(2, 99)],
      // A name field appended with a length of 2^31 and one byte, 'x': protobufjs cut the string to what there was and
      // the branch 'x' was created (found by drill:fuzz, seed 1742784066).
      [
        '/skillregistry.v1.Twin/CreateBranch',
        Buffer.concat([
          field(1, Buffer.from('a/b')),
          field(2, Buffer.from('main')),
          Buffer.from([0x0a, 0x80, 0x80, 0x80, 0x80, 0x08]),
          Buffer.from('x'),
        ]),
        bearer(ADMIN_TOKEN),
      ],
      [
        'DeprecateSkill',
        Buffer.concat([
          field(1, Buffer.from('echo_text')),
          field(2, Buffer.from('old')),
          field(5, Buffer.from([0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f])),
        ]),
        bearer(ADMIN_TOKEN),
      ], // sunset.seconds far beyond year 9999
    ];
    for (const [method, bytes, metadata] of cases) {
      const error = await send(method, bytes, metadata);
      expect({ method, code: error?.code }).toEqual({ method, code: grpc.status.INVALID_ARGUMENT });
    }
    expect(await snapshot()).toBe(before);
  });
});
