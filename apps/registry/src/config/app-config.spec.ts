import { ConfigError, loadConfig } from './app-config.js';
import { redisTopologyOf } from '#contracts/index.js';

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/skill_registry',
      REDIS_URL: 'redis://127.0.0.1:6379',
      PORT: 3000,
      SKILL_PATHS: ['./skills'],
      ADMIN_TOKENS: [],
      AGENT_TOKENS: [],
      LOG_LEVEL: 'info',
      DATABASE_STATEMENT_TIMEOUT_MS: 30_000,
    });
  });

  it('reads DATABASE_STATEMENT_TIMEOUT_MS as milliseconds (0: no bound) and refuses anything else', () => {
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '0' }).DATABASE_STATEMENT_TIMEOUT_MS).toBe(0);
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '2500' }).DATABASE_STATEMENT_TIMEOUT_MS).toBe(2500);
    for (const bad of ['-1', '1.5', 'soon', '3600001']) {
      expect(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: bad })).toThrow(/DATABASE_STATEMENT_TIMEOUT_MS/);
    }
  });

  it('splits SKILL_PATHS on ":" and names token identities', () => {
    const config = loadConfig({ SKILL_PATHS: './skills:/opt/skills', ADMIN_TOKENS: 'alice=secret-token-1, anonymous-token-2' });
    expect(config.SKILL_PATHS).toEqual(['./skills', '/opt/skills']);
    expect(config.ADMIN_TOKENS.map((t) => t.identity)).toEqual(['alice', expect.stringMatching(/^admin-[0-9a-f]{8}$/)]);
    expect(JSON.stringify(config.ADMIN_TOKENS)).not.toContain('secret-token-1');
  });

  it('reads publisher tokens with their name scopes', () => {
    const config = loadConfig({ PUBLISHER_TOKENS: 'acme=publisher-token-1:acme_*|shared_tool, publisher-token-2:*' });
    expect(config.PUBLISHER_TOKENS.map(({ identity, scopes }) => ({ identity, scopes }))).toEqual([
      { identity: 'acme', scopes: ['acme_*', 'shared_tool'] },
      { identity: expect.stringMatching(/^publisher-[0-9a-f]{8}$/), scopes: ['*'] },
    ]);
    expect(JSON.stringify(config.PUBLISHER_TOKENS)).not.toContain('publisher-token-1');
  });

  it.each([
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '70000' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://localhost/x' }],
    ['REDIS_URL', { REDIS_URL: 'localhost:6379' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['ADMIN_TOKENS', { ADMIN_TOKENS: 'short' }],
    ['PUBLISHER_TOKENS', { PUBLISHER_TOKENS: 'acme=publisher-token-1' }],
    ['PUBLISHER_TOKENS', { PUBLISHER_TOKENS: 'acme=publisher-token-1:Acme*' }],
    ['PUBLISHER_TOKENS', { PUBLISHER_TOKENS: 'acme=publisher-token-1:acme_*|' }],
    ['PUBLISHER_TOKENS', { PUBLISHER_TOKENS: 'acme=short:acme_*' }],
    ['AGENT_TOKENS', { ADMIN_TOKENS: 'root=same-token-1', AGENT_TOKENS: 'bot=same-token-1' }],
    ['QUEUE_PREFIX', { REDIS_CLUSTER_NODES: '127.0.0.1:7000' }],
    ['QUEUE_PREFIX', { REDIS_URL: 'redis+cluster://127.0.0.1:7000', QUEUE_PREFIX: 'prod' }],
    ['QUEUE_PREFIX', { QUEUE_PREFIX: '{a}{b}' }],
    ['REDIS_CLUSTER_NODES', { REDIS_CLUSTER_NODES: '127.0.0.1', QUEUE_PREFIX: '{sr}' }],
    ['DATABASE_DIRECT_URL', { DATABASE_DIRECT_URL: 'localhost:5432' }],
  ])('refuses a malformed %s, naming it', (variable, env) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`${variable}:`));
  });

  it('reads a Redis Cluster with a hash-tagged prefix', () => {
    const config = loadConfig({ REDIS_URL: 'redis+cluster://127.0.0.1:7000,127.0.0.1:7001', QUEUE_PREFIX: '{skill-registry}' });
    expect(redisTopologyOf(config)).toMatchObject({ mode: 'cluster', nodes: [{ port: 7000 }, { port: 7001 }] });
  });

  it('reads TRUST_PROXY as the proxies to believe (none by default) and refuses what would believe any client', () => {
    expect(loadConfig({}).TRUST_PROXY).toEqual([]);
    expect(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8, loopback,fd00::1 ' }).TRUST_PROXY).toEqual(['10.0.0.0/8', 'loopback', 'fd00::1']);
    for (const [value, words] of [
      ['1', /hop count/],
      ['true', /hop count/],
      ['*', /hop count/],
      ['10.0.0.0/33', /not an IP address, a CIDR range/],
      ['proxy.internal', /not an IP address, a CIDR range/],
    ] as const) {
      try {
        loadConfig({ TRUST_PROXY: value });
        throw new Error(`expected a ConfigError for ${value}`);
      } catch (error) {
        expect((error as ConfigError).problems).toEqual([expect.stringMatching(words)]);
        expect((error as ConfigError).problems[0]).toMatch(/^TRUST_PROXY/);
      }
    }
  });

  it('reports every bad variable at once', () => {
    try {
      loadConfig({ PORT: 'x', LOG_LEVEL: 'y' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect((error as ConfigError).problems.map((p) => p.split(':')[0]).sort()).toEqual(['LOG_LEVEL', 'PORT']);
    }
  });
});
