import { useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';
import { api, type Schemas } from '../api/client';
import { readToken, saveToken } from './token';

type Access = Schemas['Access'];

interface AccessState {
  /** What the token may do (GET /v1/access); undefined while loading or when refused. */
  access: Access | undefined;
  signedIn: boolean;
  /** The registry refused the token (unknown), or needs one (AGENT_TOKENS set). */
  refused: { status?: number; detail?: string } | null;
  signIn(token: string): void;
  signOut(): void;
}

const AccessContext = createContext<AccessState | null>(null);

/** Who the console acts as. The UI shows only what /v1/access allows; every call is still decided by the server. */
export function AccessProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [signedIn, setSignedIn] = useState(() => readToken() !== null);
  const query = api.useQuery('get', '/v1/access', {}, { retry: false, staleTime: 60_000 });
  const apply = useCallback(
    (token: string | null) => {
      saveToken(token);
      setSignedIn(token !== null);
      // Everything read so far was read as someone else.
      queryClient.resetQueries();
    },
    [queryClient],
  );
  const value = useMemo<AccessState>(
    () => ({
      access: query.data,
      signedIn,
      refused: query.error ? (query.error as { status?: number; detail?: string }) : null,
      signIn: (token) => apply(token.trim()),
      signOut: () => apply(null),
    }),
    [query.data, query.error, signedIn, apply],
  );
  return <AccessContext.Provider value={value}>{children}</AccessContext.Provider>;
}

export function useAccess(): AccessState {
  const state = useContext(AccessContext);
  if (!state) throw new Error('useAccess outside AccessProvider');
  return state;
}

/** Whether the token may publish and deprecate `name` (asked of the registry, which holds the scope rule). */
export function useSkillAccess(name: string) {
  const { access } = useAccess();
  const query = api.useQuery('get', '/v1/access', { params: { query: { skill: name } } }, { enabled: access?.may.publish === true });
  return { mayPromote: access?.may.promote === true, mayDeprecate: query.data?.skill?.may_deprecate === true };
}
