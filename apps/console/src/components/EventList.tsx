import type { ExecutionEvent } from './useEventStream';

/** What an event says, in a line. */
function describe(event: ExecutionEvent): string {
  switch (event.type) {
    case 'queued':
      return `queued ${event.skill} ${event.version}`;
    case 'started':
      return `attempt ${event.attempt} started`;
    case 'attempt_failed':
      return `attempt ${event.attempt} failed: ${event.error.code} ${event.error.message} (retry in ${event.next_delay_ms} ms)`;
    case 'tool_invoked':
      return `tool ${event.tool_id} invoked`;
    case 'tool_completed':
      return `tool ${event.tool_id} ${event.ok ? 'completed' : `failed${event.error ? `: ${event.error.code} ${event.error.message}` : ''}`} in ${event.duration_ms} ms`;
    case 'output_invalid':
      return `output invalid (attempt ${event.attempt}, try ${event.try})${event.reask ? ', asking again' : ''}`;
    case 'step_started':
      return `step ${event.step} (${event.tool}) started`;
    case 'step_completed':
      return `step ${event.step} (${event.tool}) ${event.ok ? 'completed' : `failed${event.error ? `: ${event.error.code} ${event.error.message}` : ''}`} in ${event.duration_ms} ms`;
    case 'twin_read':
      return `read twin ${event.work_product_id} r${event.revision} on ${event.branch}`;
    case 'twin_written':
      return `wrote twin ${event.kind} ${event.work_product_id} r${event.revision} on ${event.branch}`;
    case 'hook_failed':
      return `hook ${event.hook} (${event.phase}) failed${event.fail_closed ? ', which stops the run' : ''}: ${event.error}`;
    case 'succeeded':
      return `succeeded after ${event.duration_ms} ms`;
    case 'failed':
      return `failed: ${event.error.code} ${event.error.message}`;
    case 'cancelled':
      return `cancelled: ${event.reason}`;
    case 'log':
      return `${event.level}: ${event.message}`;
  }
}

export function EventList({ events, state }: { events: ExecutionEvent[]; state: string }) {
  return (
    <section aria-labelledby="events-title">
      <h2 id="events-title">
        Events <span className="muted">({state === 'open' ? 'live' : state})</span>
      </h2>
      <ol className="events" aria-live="polite" data-testid="events">
        {events.map((event, index) => (
          <li key={index} className={`event event-${event.type}`}>
            <time dateTime={event.at}>{new Date(event.at).toLocaleTimeString()}</time> <code>{event.type}</code> {describe(event)}
          </li>
        ))}
      </ol>
    </section>
  );
}
