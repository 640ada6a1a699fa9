export type Role = 'admin' | 'agent' | 'anonymous';

/** Who is calling: the identity a token acts as. */
export interface Principal {
  identity: string;
  role: Role;
}

export const ANONYMOUS: Principal = { identity: 'anonymous', role: 'anonymous' };
