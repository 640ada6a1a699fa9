import { EventSourceParserStream } from 'eventsource-parser/stream';
import { useEffect, useRef, useState } from 'react';
import { fetchClient, type Schemas } from '../api/client';

export type ExecutionEvent = Schemas['ExecutionEvent'];

const ENDS = new Set(['succeeded', 'failed', 'cancelled']);

/**
 * The execution's Server-Sent Events (GET /v1/executions/{id}/events), read with fetch so that the bearer
 * token goes with them (EventSource cannot send a header): every event from the beginning, then live,
 * until the execution ends. `onEnd` runs once the final event arrived (to refresh the execution).
 */
export function useEventStream(id: string | undefined, onEnd?: () => void) {
  const [events, setEvents] = useState<ExecutionEvent[]>([]);
  const [state, setState] = useState<'idle' | 'open' | 'ended' | 'failed'>('idle');
  // The page's callback of the moment: a new identity must not reopen the stream.
  const ended = useRef(onEnd);
  ended.current = onEnd;
  useEffect(() => {
    if (!id) return;
    const abort = new AbortController();
    setEvents([]);
    setState('open');
    void (async () => {
      try {
        const { response } = await fetchClient.GET('/v1/executions/{id}/events', {
          params: { path: { id } },
          parseAs: 'stream',
          signal: abort.signal,
        });
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        const reader = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          if (value.event === 'error') throw new Error('the event stream was interrupted');
          const event = JSON.parse(value.data) as ExecutionEvent;
          setEvents((previous) => [...previous, event]);
          if (ENDS.has(event.type)) ended.current?.();
        }
        setState('ended');
      } catch (error) {
        if (!abort.signal.aborted) setState((error as Error).name === 'AbortError' ? 'ended' : 'failed');
      }
    })();
    return () => abort.abort();
  }, [id]);
  return { events, state };
}
