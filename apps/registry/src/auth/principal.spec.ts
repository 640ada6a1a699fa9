import { describe, expect, it } from '@jest/globals';
import { ANONYMOUS, callerKey, peerAddress } from './principal.js';

describe('callerKey', () => {
  it("is a token's identity, whatever its address", () => {
    expect(callerKey({ identity: 'root', role: 'admin' }, '10.0.0.1')).toBe('root');
    expect(callerKey({ identity: 'acme', role: 'publisher', scopes: ['acme_*'] }, undefined)).toBe('acme');
  });

  it("is an anonymous caller's address, so that two anonymous clients do not share one", () => {
    expect(callerKey(ANONYMOUS, '127.0.0.1')).toBe('anonymous@127.0.0.1');
    expect(callerKey(ANONYMOUS, '::1')).not.toBe(callerKey(ANONYMOUS, '127.0.0.1'));
    expect(callerKey(ANONYMOUS, undefined)).toBe('anonymous@unknown');
  });
});

describe('peerAddress', () => {
  it("drops a gRPC peer's scheme and port: two calls of one client are one address", () => {
    expect(peerAddress('ipv4:127.0.0.1:53712')).toBe('127.0.0.1');
    expect(peerAddress('ipv4:127.0.0.1:40001')).toBe('127.0.0.1');
    expect(peerAddress('ipv6:[::1]:53712')).toBe('::1');
    expect(peerAddress('ipv6:[2001:db8::7]:443')).toBe('2001:db8::7');
  });

  it('keeps what it cannot read as it is', () => {
    expect(peerAddress('unix:/run/registry.sock')).toBe('unix:/run/registry.sock');
    expect(peerAddress(undefined)).toBeUndefined();
  });
});
