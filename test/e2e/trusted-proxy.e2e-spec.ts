import { rm } from 'node:fs/promises';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { activate, obliterateQueue } from '../support/executions.js';
import { StreamReaders } from '../../apps/registry/src/executions/execution-infrastructure.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';
import { getFrom, type AnswerFrom } from '../support/http-from.js';

/**
 * Behind a reverse proxy every client reaches the registry from the proxy's address. With TRUST_PROXY naming the
 * proxy, the registry reads the client's address, host and scheme from the proxy's X-Forwarded-* headers — and from
 * no one else's: before, an anonymous caller's share of event streams was the proxy's (one for every client behind
 * it), and agent cards named the proxy's view of the registry (http, its internal host) instead of the public one.
 */
describe('behind a trusted proxy (TRUST_PROXY)', () => {
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  let executionUrl: string;
  let port: string;
  const queuePrefix = `test-trusted-proxy-${process.pid}-${Date.now()}`;
  const open: AnswerFrom[] = [];
  const readers = () => registry.app.get(StreamReaders, { strict: false }).count;

  beforeAll(async () => {
    db = await createTestDatabase('trusted_proxy');
    root = await tempRoot();
    await writeEchoSkill(root, { name: 'echo_text' });
    registry = await startRegistry({
      databaseUrl: db.url,
      skillPaths: [root],
      queuePrefix,
      env: {
        TRUST_PROXY: '127.0.0.1',
        ALLOWED_HOSTS: '127.0.0.1,registry.example.com',
        EVENT_STREAMS_MAX: '10',
        EVENT_STREAMS_PER_CALLER: '1',
      },
    });
    port = new URL(registry.baseUrl).port;
    await activate(registry.baseUrl, ['echo_text']);
    const created = await call(registry.baseUrl, 'POST', '/v1/skills/echo_text/executions', {
      token: ADMIN_TOKEN,
      body: { input: { text: 'x' } },
    });
    expect(created.status).toBe(202);
    executionUrl = `${registry.baseUrl}/v1/executions/${created.body.id as string}/events`;
  });

  afterAll(async () => {
    for (const answer of open) answer.close();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  const stream = async (from: string, forwardedFor?: string) => {
    const answer = await getFrom(executionUrl, from, {
      accept: 'text/event-stream',
      ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
    });
    open.push(answer);
    return answer.status;
  };

  it('gives each client behind the proxy its own share of event streams, keyed by the address the proxy forwards', async () => {
    expect(await stream('127.0.0.1', '203.0.113.5')).toBe(200);
    expect(await stream('127.0.0.1', '203.0.113.6')).toBe(200);
    // The same client again, past its share of one.
    expect(await stream('127.0.0.1', '203.0.113.5')).toBe(429);
    // A client's own address is the last one the proxy appended, whatever the client wrote before it.
    expect(await stream('127.0.0.1', '203.0.113.9, 203.0.113.5')).toBe(429);
    expect(readers()).toBe(2);
  });

  it('believes no one else: a client that reaches the registry directly is its own address, whatever it forwards', async () => {
    expect(await stream('127.0.0.2', '198.51.100.1')).toBe(200);
    expect(await stream('127.0.0.2', '198.51.100.2')).toBe(429);
    expect(readers()).toBe(3);
  });

  it("names the proxy's public origin in agent cards, and holds the forwarded host to ALLOWED_HOSTS", async () => {
    const url = `${registry.baseUrl}/.well-known/agent-card.json`;
    const forwarded = { 'x-forwarded-host': 'registry.example.com', 'x-forwarded-proto': 'https' };
    const proxied = await getFrom(url, '127.0.0.1', forwarded);
    expect(proxied.status).toBe(200);
    expect(proxied.body.supportedInterfaces[0].url).toBe('https://registry.example.com/mcp');

    const direct = await getFrom(url, '127.0.0.2', forwarded);
    expect(direct.status).toBe(200);
    expect(direct.body.supportedInterfaces[0].url).toBe(`http://127.0.0.1:${port}/mcp`);

    const rebound = await getFrom(url, '127.0.0.1', { 'x-forwarded-host': 'rebind.attacker.example' });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toMatchObject({ code: 'HOST_NOT_ALLOWED' });
    // The catalog reads answered ahead of Fastify (read-fast-path.ts) hold the same rule.
    for (const path of ['/v1/skills', '/v1/skills/echo_text']) {
      const read = await getFrom(`${registry.baseUrl}${path}`, '127.0.0.1', { 'x-forwarded-host': 'rebind.attacker.example' });
      expect(read.status).toBe(403);
      expect((await getFrom(`${registry.baseUrl}${path}`, '127.0.0.1', { 'x-forwarded-host': 'registry.example.com' })).status).toBe(200);
    }
  });
});
