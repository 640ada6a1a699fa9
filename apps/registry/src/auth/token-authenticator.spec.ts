import { loadConfig } from '../config/app-config.js';
import { Forbidden, TokenAuthenticator, Unauthenticated } from './token-authenticator.js';

const withAgents = new TokenAuthenticator(loadConfig({ ADMIN_TOKENS: 'root=admin-token-1', AGENT_TOKENS: 'bot=agent-token-1' }));
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
});
