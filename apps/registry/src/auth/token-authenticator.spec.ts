import { loadConfig } from '../config/app-config.js';
import { ANONYMOUS } from './principal.js';
import { Forbidden, TokenAuthenticator, Unauthenticated, assertMayPublish } from './token-authenticator.js';

const withAgents = new TokenAuthenticator(
  loadConfig({
    ADMIN_TOKENS: 'root=admin-token-1',
    AGENT_TOKENS: 'bot=agent-token-1',
    PUBLISHER_TOKENS: 'acme=publisher-token-1:acme_*|shared_tool',
  }),
);
const openReads = new TokenAuthenticator(loadConfig({ ADMIN_TOKENS: 'root=admin-token-1' }));

describe('token authenticator', () => {
  it('lets public routes through without looking at the token', () => {
    expect(withAgents.authorize(undefined, 'public').role).toBe('anonymous');
    expect(withAgents.authorize('Bearer nonsense', 'public').role).toBe('anonymous');
  });

  it('needs an admin token for admin calls: 401 without/unknown, 403 for agents', () => {
    expect(() => withAgents.authorize(undefined, 'admin')).toThrow(Unauthenticated);
    expect(() => withAgents.authorize('Bearer unknown-token', 'admin')).toThrow(Unauthenticated);
    expect(() => withAgents.authorize('Token admin-token-1', 'admin')).toThrow(Unauthenticated);
    expect(() => withAgents.authorize('Bearer agent-token-1', 'admin')).toThrow(Forbidden);
    expect(withAgents.authorize('Bearer admin-token-1', 'admin')).toEqual({ identity: 'root', role: 'admin' });
    expect(withAgents.authorize('bearer   admin-token-1 ', 'admin').identity).toBe('root');
  });

  it('opens reads to everyone unless AGENT_TOKENS is set, but never accepts an unknown token', () => {
    expect(openReads.authorize(undefined, 'read').role).toBe('anonymous');
    expect(() => openReads.authorize('Bearer unknown-token', 'read')).toThrow(Unauthenticated);
    expect(() => withAgents.authorize(undefined, 'read')).toThrow(Unauthenticated);
    expect(withAgents.authorize('Bearer agent-token-1', 'read')).toEqual({ identity: 'bot', role: 'agent' });
    expect(withAgents.authorize('Bearer admin-token-1', 'read').role).toBe('admin');
  });

  it('answers a token it recognised before the same way, and every other token as before, however many it saw', () => {
    const authenticator = new TokenAuthenticator(loadConfig({ ADMIN_TOKENS: 'root=admin-token-1', AGENT_TOKENS: 'bot=agent-token-1' }));
    for (let round = 0; round < 3; round++) {
      expect(authenticator.authorize('Bearer agent-token-1', 'read')).toEqual({ identity: 'bot', role: 'agent' });
      expect(() => authenticator.authorize('Bearer agent-token-1', 'admin')).toThrow(Forbidden);
      expect(authenticator.authorize('Bearer admin-token-1', 'admin')).toEqual({ identity: 'root', role: 'admin' });
      // Near misses of a recognised token stay unknown.
      for (const near of ['agent-token-', 'agent-token-11', 'Agent-token-1']) {
        expect(() => authenticator.authorize(`Bearer ${near}`, 'read')).toThrow(Unauthenticated);
      }
    }
    for (let index = 0; index < 3000; index++) {
      expect(() => authenticator.authorize(`Bearer unknown-${index}`, 'read')).toThrow(Unauthenticated);
    }
    expect(authenticator.authorize('Bearer agent-token-1', 'read').identity).toBe('bot');
  });

  it('lets publishers and admins publish, and refuses agents and callers without a token', () => {
    expect(withAgents.authorize('Bearer publisher-token-1', 'publish')).toEqual({
      identity: 'acme',
      role: 'publisher',
      scopes: ['acme_*', 'shared_tool'],
    });
    expect(withAgents.authorize('Bearer admin-token-1', 'publish').role).toBe('admin');
    expect(() => withAgents.authorize('Bearer agent-token-1', 'publish')).toThrow(Forbidden);
    expect(() => withAgents.authorize(undefined, 'publish')).toThrow(Unauthenticated);
    expect(() => withAgents.authorize('Bearer publisher-token-1', 'admin')).toThrow(/a publisher token; this call needs an admin token/);
    expect(withAgents.authorize('Bearer publisher-token-1', 'read').role).toBe('publisher');
  });

  it('keeps a publisher inside its name scopes', () => {
    const publisher = withAgents.authorize('Bearer publisher-token-1', 'publish');
    expect(() => assertMayPublish(publisher, 'acme_filter')).not.toThrow();
    expect(() => assertMayPublish(publisher, 'shared_tool')).not.toThrow();
    expect(() => assertMayPublish(publisher, 'shared_tool_two')).toThrow(/outside them/);
    expect(() => assertMayPublish(publisher, 'acm_filter')).toThrow(Forbidden);
    expect(() => assertMayPublish(withAgents.authorize('Bearer admin-token-1', 'admin'), 'anything')).not.toThrow();
    expect(() => assertMayPublish(ANONYMOUS, 'acme_filter')).toThrow(Forbidden);
  });
});
