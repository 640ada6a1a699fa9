import { useQuery } from '@tanstack/react-query';
import { fetchClient, unwrap } from '../../api/client';

/** One stored file of a version as text (GET …/files/{path}); immutable, so cached for the session. */
export function useFileText(name: string, version: string | undefined, path: string | undefined) {
  return useQuery({
    queryKey: ['file-text', name, version, path],
    enabled: version !== undefined && path !== undefined,
    staleTime: Infinity,
    queryFn: async () =>
      unwrap(
        await fetchClient.GET('/v1/skills/{name}/versions/{version}/files/{path}', {
          params: { path: { name, version: version as string, path: path as string } },
          parseAs: 'text',
        }),
      ) as unknown as string,
  });
}
