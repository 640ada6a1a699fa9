import { CloudEvent, HTTP } from 'cloudevents';
import pRetry, { AbortError } from 'p-retry';

/** One delivery's options, from the hook's `webhook` action. */
export interface WebhookTarget {
  url: string;
  timeoutMs: number;
  retries: number;
  headers: Record<string, string>;
}

/** A CloudEvents 1.0 event as the hooks send it: type, source, subject, data, and the execution as an extension. */
export interface HookCloudEvent {
  type: string;
  source: string;
  subject: string;
  executionId: string | null;
  data: Record<string, unknown>;
}

/** How a delivery went: the tries it took, and the status that ended it. */
export interface WebhookDelivery {
  tries: number;
  status: number;
}

/** A delivery that failed after its retries (or on a status not worth retrying). */
export class WebhookFailed extends Error {
  constructor(
    message: string,
    readonly tries: number,
  ) {
    super(message);
    this.name = 'WebhookFailed';
  }
}

/** Statuses worth another try: the server's trouble or its asking for patience; any other 4xx is final. */
function retryable(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/**
 * POSTs CloudEvents 1.0 in structured JSON mode (`application/cloudevents+json`), each try bounded by the
 * target's timeout, retried with exponential backoff on network errors, timeouts, 5xx, 408 and 429.
 * Redirects are not followed (a 3xx is a failure): the event goes where the hooks file says, nowhere else.
 */
export class WebhookSender {
  constructor(private readonly fetchImpl: typeof fetch = fetch) {}

  async send(target: WebhookTarget, event: HookCloudEvent): Promise<WebhookDelivery> {
    const cloudEvent = new CloudEvent({
      specversion: '1.0',
      type: event.type,
      source: event.source,
      subject: event.subject,
      datacontenttype: 'application/json',
      data: event.data,
      ...(event.executionId ? { executionid: event.executionId } : {}),
    });
    const message = HTTP.structured(cloudEvent);
    const headers: Record<string, string> = { ...target.headers, 'content-type': String(message.headers['content-type']) };
    let tries = 0;
    try {
      return await pRetry(
        async () => {
          tries++;
          let response: Response;
          try {
            response = await this.fetchImpl(target.url, {
              method: 'POST',
              headers,
              body: message.body as string,
              redirect: 'manual',
              signal: AbortSignal.timeout(target.timeoutMs),
            });
          } catch (error) {
            // Network errors and timeouts are worth another try (thrown as this module's own error, which the
            // retry loop recognises whatever realm fetch's errors come from).
            throw new WebhookFailed(`${target.url} could not be reached: ${describe(error)}`, tries);
          }
          await response.body?.cancel().catch(() => undefined);
          if (response.status >= 200 && response.status < 300) return { tries, status: response.status };
          const failure = new WebhookFailed(`${target.url} answered ${response.status}`, tries);
          throw retryable(response.status) ? failure : new AbortError(failure);
        },
        { retries: target.retries, minTimeout: 100, maxTimeout: 2000, factor: 2 },
      );
    } catch (error) {
      if (error instanceof WebhookFailed) throw new WebhookFailed(error.message, tries);
      throw new WebhookFailed(`${target.url} failed: ${describe(error)}`, tries);
    }
  }
}

function describe(error: unknown): string {
  if ((error as { name?: string } | null)?.name === 'TimeoutError') return 'timed out';
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error);
}
