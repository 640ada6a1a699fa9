import { loadConfig } from '../config/app-config.js';
import { assertMayPublish, type AccessLevel, TokenAuthenticator } from '../auth/token-authenticator.js';
import { DescribeAccess } from './describe-access.js';

const TOKENS = {
  ADMIN_TOKENS: 'root=admin-token-1',
  PUBLISHER_TOKENS: 'acme=publisher-token-1:acme_*|shared_tool',
};

/** Whether the guard lets `authorization` through at `level` (what the server decides). */
function allowed(authenticator: TokenAuthenticator, authorization: string | undefined, level: AccessLevel): boolean {
  try {
    authenticator.authorize(authorization, level);
    return true;
  } catch {
    return false;
  }
}

describe('what a token may do (GET /v1/access)', () => {
  for (const agentTokens of ['', 'bot=agent-token-1']) {
    const config = loadConfig({ ...TOKENS, AGENT_TOKENS: agentTokens });
    const authenticator = new TokenAuthenticator(config);
    const describeAccess = new DescribeAccess(config);

    it(`says what the guard and the scope rule decide, for every kind of token (AGENT_TOKENS ${agentTokens ? 'set' : 'unset'})`, () => {
      const headers = [undefined, 'Bearer admin-token-1', 'Bearer publisher-token-1', ...(agentTokens ? ['Bearer agent-token-1'] : [])];
      for (const authorization of headers) {
        if (!allowed(authenticator, authorization, 'read')) continue; // GET /v1/access itself is a read: 401 then
        const principal = authenticator.authorize(authorization, 'read');
        const access = describeAccess.run(principal, 'acme_filter');
        expect({ authorization, may: access.may }).toEqual({
          authorization,
          may: {
            read: allowed(authenticator, authorization, 'read'),
            execute: allowed(authenticator, authorization, 'read'),
            write_twin: allowed(authenticator, authorization, 'write'),
            publish: allowed(authenticator, authorization, 'publish'),
            promote: allowed(authenticator, authorization, 'admin'),
          },
        });
        for (const name of ['acme_filter', 'shared_tool', 'other_skill']) {
          let mayPublish = allowed(authenticator, authorization, 'publish');
          try {
            assertMayPublish(principal, name);
          } catch {
            mayPublish = false;
          }
          expect({ name, skill: describeAccess.run(principal, name).skill }).toEqual({
            name,
            skill: { name, may_publish: mayPublish, may_deprecate: mayPublish },
          });
        }
      }
    });
  }

  it("names the identity and role, and a publisher's scopes", () => {
    const config = loadConfig(TOKENS);
    const describeAccess = new DescribeAccess(config);
    const authenticator = new TokenAuthenticator(config);
    expect(describeAccess.run(authenticator.authorize('Bearer publisher-token-1', 'read'), undefined)).toMatchObject({
      identity: 'acme',
      role: 'publisher',
      scopes: ['acme_*', 'shared_tool'],
      skill: null,
    });
    expect(describeAccess.run(authenticator.authorize(undefined, 'read'), undefined)).toMatchObject({
      identity: 'anonymous',
      role: 'anonymous',
      scopes: null,
    });
  });
});
