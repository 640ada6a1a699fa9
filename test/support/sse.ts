/** One Server-Sent Event as received: its id, its `event` name and its `data` parsed as JSON. */
export interface ReceivedEvent {
  id: string | undefined;
  type: string;
  data: any;
}

/** A stream that stays open (GET /v1/events): the events so far, waiting for more, closing. */
export interface OpenStream {
  status: number;
  headers: Headers;
  /** Every event received so far, in order. */
  events: ReceivedEvent[];
  /** Resolves once `predicate` holds for the events received (checked as each arrives). */
  until(predicate: (events: ReceivedEvent[]) => boolean, timeoutMs?: number): Promise<ReceivedEvent[]>;
  close(): void;
}

/** Opens an SSE stream that does not end by itself; non-200 answers resolve with their status and no events. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const events: ReceivedEvent[] = [];
  const waiters = new Set<() => void>();
  const stream: OpenStream = {
    status: response.status,
    headers: response.headers,
    events,
    until(predicate, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(events)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve([...events]);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the stream did not get there in ${timeoutMs} ms; received: ${JSON.stringify(events.map((e) => e.type))}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => controller.abort(),
  };
  if (response.status !== 200 || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    return stream;
  }
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = new Map<string, string>();
          for (const line of block.split('\n')) {
            if (line.startsWith(':') || !line.includes(':')) continue;
            fields.set(line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trimStart());
          }
          if (!fields.has('data')) continue;
          events.push({ id: fields.get('id'), type: fields.get('event') ?? 'message', data: JSON.parse(fields.get('data') as string) });
          for (const waiter of [...waiters]) waiter();
        }
      }
    } catch {
      /* closed */
    }
  })();
  return stream;
}
