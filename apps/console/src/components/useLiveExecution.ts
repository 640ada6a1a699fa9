import { useState } from 'react';
import { api } from '../api/client';
import { useEventStream } from './useEventStream';

const ENDED = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);

/**
 * An execution's record and its live events. The record is read again when the final event arrives, and then each
 * second until it shows the end: a read that raced the end, or failed, is never what the page is left showing.
 * `afterRecord`: open the event stream only once the record was read (a page opened on an id that may not exist).
 */
export function useLiveExecution(id: string | undefined, afterRecord = false) {
  const [endSeenFor, setEndSeenFor] = useState<string | null>(null);
  const execution = api.useQuery(
    'get',
    '/v1/executions/{id}',
    { params: { path: { id: id ?? '' } } },
    {
      enabled: id !== undefined,
      refetchInterval: (query) => (endSeenFor === id && query.state.data && !ENDED.has(query.state.data.status) ? 1000 : false),
    },
  );
  const stream = useEventStream(afterRecord && !execution.data ? undefined : id, () => {
    setEndSeenFor(id ?? null);
    void execution.refetch();
  });
  return { execution, stream };
}
