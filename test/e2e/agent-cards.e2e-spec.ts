import { generateKeyPairSync } from 'node:crypto';
import { AgentCard, verifyAgentCardSignature } from '@a2a-js/sdk';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { a2aProblems } from '../support/a2a-card.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { ADMIN_TOKEN, AGENT_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { copyCatalogSkill, tempRoot, writeEchoSkill } from '../support/skill-packages.js';

/**
 * A2A v1.0 agent cards (issue 26 §3): the registry's at /.well-known/agent-card.json and each agent's at
 * /v1/agents/{agent}/card, built from ACTIVE skills, validated against the A2A specification's proto (vendored)
 * and the official A2A SDK, with ETag and Cache-Control, and a JWS signature the SDK verifies when a key is set.
 */
describe('A2A agent cards', () => {
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });

  beforeAll(async () => {
    db = await createTestDatabase('agent_cards');
    root = await tempRoot();
    await copyCatalogSkill(root, 'mechanical/validate_stress');
    await copyCatalogSkill(root, 'mechanical/check_tolerances');
    await copyCatalogSkill(root, 'firmware/validate_pinmap');
    await writeEchoSkill(root, { name: 'not_promoted_echo', domain: 'mechanical', definition: { agent: 'mechanical' } });
    await writeEchoSkill(root, { name: 'thermal_echo', domain: 'thermal', definition: { agent: 'thermal_lab', title: 'Thermal echo' } });
    registry = await startRegistry({
      databaseUrl: db.url,
      skillPaths: [root],
      agentTokens: true,
      env: {
        AGENT_CARD_SIGNING_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
        AGENT_CARD_SIGNING_KEY_ID: 'registry-key-1',
      },
    });
    for (const name of ['validate_stress', 'check_tolerances', 'validate_pinmap', 'thermal_echo']) {
      const { version } = (await call(registry.baseUrl, 'GET', `/v1/skills/${name}`, { token: AGENT_TOKEN })).body;
      const promoted = await call(registry.baseUrl, 'POST', `/v1/admin/skills/${name}/versions/${version}/promote`, {
        token: ADMIN_TOKEN,
        body: { force: true, reason: 'agent card test' },
      });
      expect(promoted.status).toBe(200);
    }
  });

  afterAll(async () => {
    await registry?.stop();
    await db?.drop();
  });

  const get = (path: string, headers: Record<string, string> = {}) => call(registry.baseUrl, 'GET', path, { token: AGENT_TOKEN, headers });

  /** Valid against the A2A proto, and unchanged by the official SDK's JSON round trip (no unknown field, every type right). */
  function expectValidCard(card: Record<string, unknown>): void {
    expect(a2aProblems('AgentCard', card)).toEqual([]);
    expect(AgentCard.toJSON(AgentCard.fromJSON(card))).toEqual(card);
  }

  it('holds cards to the A2A proto: a missing REQUIRED field, an unknown key and a wrong type are each named', () => {
    const problems = a2aProblems('AgentCard', { name: 'x', description: 'y', version: 1, nickname: 'z', skills: [{ id: 's' }] });
    expect(problems).toEqual(
      expect.arrayContaining([
        '/nickname: not a field of AgentCard',
        '/version: a string',
        '/supportedInterfaces: REQUIRED in AgentCard',
        '/skills/0/name: REQUIRED in AgentSkill',
      ]),
    );
  });

  it("serves the registry's card at the well-known path: one skill per agent with ACTIVE skills, MCP and REST interfaces", async () => {
    const answer = await get('/.well-known/agent-card.json');
    expect(answer.status).toBe(200);
    expectValidCard(answer.body);
    expect(answer.body.skills.map((skill: { id: string }) => skill.id)).toEqual([
      'agent:firmware',
      'agent:mechanical',
      'agent:thermal_lab',
    ]);
    expect(answer.body.supportedInterfaces).toEqual([
      {
        url: `${registry.baseUrl}/mcp`,
        protocolBinding: 'https://modelcontextprotocol.io/specification/2025-11-25/basic/transports',
        protocolVersion: '2025-11-25',
      },
      {
        url: `${registry.baseUrl}/mcp`,
        protocolBinding: 'https://modelcontextprotocol.io/specification/2026-07-28/basic/transports',
        protocolVersion: '2026-07-28',
      },
      { url: `${registry.baseUrl}/v1`, protocolBinding: `${registry.baseUrl}/docs-json`, protocolVersion: '1' },
    ]);
    expect(answer.body.securitySchemes).toEqual({
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: expect.any(String) } },
    });
  });

  it("serves each agent's card from its ACTIVE skills, with ETag, Cache-Control and 304 for a current copy", async () => {
    const answer = await get('/v1/agents/mechanical/card');
    expect(answer.status).toBe(200);
    expectValidCard(answer.body);
    expect(answer.body.skills.map((skill: { id: string }) => skill.id).sort()).toEqual(['check_tolerances', 'validate_stress']);
    const stress = answer.body.skills.find((skill: { id: string }) => skill.id === 'validate_stress');
    expect(stress).toMatchObject({
      tags: expect.arrayContaining(['mechanical']),
      inputModes: ['application/json'],
      outputModes: ['application/json'],
    });
    expect(JSON.parse(stress.examples[0])).toEqual(expect.any(Object));
    const etag = answer.headers.get('etag') as string;
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    expect(answer.headers.get('cache-control')).toBe('private, max-age=60');
    expect((await get('/v1/agents/mechanical/card', { 'if-none-match': etag })).status).toBe(304);
    expect((await get('/v1/agents/thermal_lab/card')).body.skills).toEqual([
      expect.objectContaining({ id: 'thermal_echo', name: 'Thermal echo' }),
    ]);

    const missing = await get('/v1/agents/electronics/card');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'AGENT_NOT_FOUND' });
    expect((await call(registry.baseUrl, 'GET', '/v1/agents/mechanical/card')).status).toBe(401);
  });

  it('points at real endpoints: the MCP URL of an agent card lists exactly its skills', async () => {
    const card = (await get('/v1/agents/mechanical/card')).body;
    const client = new Client({ name: 'a2a-card-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(card.supportedInterfaces[0].url), { authProvider: { token: async () => AGENT_TOKEN } }),
    );
    try {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools.filter((name) => !['search_skills', 'get_skill_info'].includes(name)).sort()).toEqual([
        'check_tolerances',
        'validate_stress',
      ]);
    } finally {
      await client.close();
    }
    expect((await get(`${new URL(card.supportedInterfaces[2].url).pathname}/skills/validate_stress`)).status).toBe(200);
  });

  it('signs every card (JWS over the JCS-canonical card) so that the A2A SDK verifies it, and a changed card fails', async () => {
    const card = (await get('/v1/agents/firmware/card')).body;
    expect(card.signatures).toHaveLength(1);
    const protectedHeader = JSON.parse(Buffer.from(card.signatures[0].protected, 'base64url').toString('utf8'));
    expect(protectedHeader).toEqual({ alg: 'ES256', typ: 'JOSE', kid: 'registry-key-1' });
    const verify = verifyAgentCardSignature(async (kid) => {
      expect(kid).toBe('registry-key-1');
      return publicKey;
    });
    await expect(verify(AgentCard.fromJSON(card))).resolves.toBeUndefined();
    await expect(verify(AgentCard.fromJSON({ ...card, description: 'tampered' }))).rejects.toThrow(/No valid signatures/);
  });
});
