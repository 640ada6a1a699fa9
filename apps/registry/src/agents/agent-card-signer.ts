import { createPrivateKey, type KeyObject } from 'node:crypto';
import { generateAgentCardSignature, type AgentCard } from '@a2a-js/sdk';

/** The JWS algorithm of a private key: ES256 (EC P-256), EdDSA (Ed25519) or RS256 (RSA); null for another key. */
function algorithmOf(key: KeyObject): string | null {
  if (key.asymmetricKeyType === 'ec') return key.asymmetricKeyDetails?.namedCurve === 'prime256v1' ? 'ES256' : null;
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  return null;
}

/**
 * Signs agent cards (A2A v1.0 §8.4): a JWS over the JCS-canonical card (RFC 8785, `signatures` left out, proto
 * defaults dropped), with protected header `{ alg, typ: "JOSE", kid }`. The canonicalisation and the signature
 * are the official A2A SDK's (`generateAgentCardSignature`), so a verifier built on it agrees by construction.
 */
export class AgentCardSigner {
  private readonly sign: (card: AgentCard) => Promise<AgentCard>;

  constructor(pem: string, keyId: string) {
    const key = createPrivateKey(pem);
    const alg = algorithmOf(key);
    if (alg === null) throw new Error('AGENT_CARD_SIGNING_KEY must be an EC P-256, Ed25519 or RSA private key (PEM)');
    this.sign = generateAgentCardSignature(key, { alg, typ: 'JOSE', kid: keyId });
  }

  signed(card: AgentCard): Promise<AgentCard> {
    return this.sign({ ...card, signatures: [] });
  }
}
