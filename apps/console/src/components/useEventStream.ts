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
type StreamState = 'idle' | 'open' | 'ended' | 'failed';

export function useEventStream(id: string | undefined, onEnd?: () => void) {
  // What was read, for the stream of `of`: a new id starts from nothing without a reset in the effect.
  const [read, setRead] = useState<{ of: string | undefined; events: ExecutionEvent[]; state: StreamState }>({
    of: undefined,
    events: [],
    state: 'idle',
  });
  // The page's callback of the moment: a new identity must not reopen the stream.
  const ended = useRef(onEnd);
  useEffect(() => {
    ended.current = onEnd;
  });
  useEffect(() => {
    if (!id) return;
    const abort = new AbortController();
    const update = (change: (events: ExecutionEvent[]) => { events: ExecutionEvent[]; state: StreamState }) =>
      setRead((previous) => ({ of: id, ...change(previous.of === id ? previous.events : []) }));
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
          update((events) => ({ events: [...events, event], state: 'open' }));
          if (ENDS.has(event.type)) ended.current?.();
        }
        update((events) => ({ events, state: 'ended' }));
      } catch {
        if (!abort.signal.aborted) update((events) => ({ events, state: 'failed' }));
      }
    })();
    return () => abort.abort();
  }, [id]);
  if (!id) return { events: [], state: 'idle' as StreamState };
  return read.of === id ? { events: read.events, state: read.state } : { events: [], state: 'open' as StreamState };
}
