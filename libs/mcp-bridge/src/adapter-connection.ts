import { Client, ProtocolError, SdkError, SdkErrorCode, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import type { BridgeLogger } from './logger.js';

/** What one adapter offered at the last look, and whether it answered. */
export interface AdapterListing {
  /** The adapter answered `tools/list` (false: unreachable or failing). */
  reachable: boolean;
  /** Its tools; when unreachable, the last tools it listed (so they can be shown as unavailable). */
  tools: Tool[];
  /** Epoch ms of the look. */
  checkedAt: number;
  /** Why the adapter is unreachable. */
  error?: string;
}

export interface AdapterConnectionOptions {
  /** How long a listing is served without asking the adapter again. */
  availabilityTtlMs: number;
  /** Upper bound for connecting (version probe) and for `tools/list`. */
  connectTimeoutMs: number;
  clientInfo: { name: string; version: string };
  logger: BridgeLogger;
}

/** A stale listing that says "reachable" is served while a refresh runs, up to this many TTLs old. */
const STALE_SERVE_FACTOR = 3;
/** An unreachable adapter is asked again after at most this long, so one that comes back is used again quickly. */
const UNREACHABLE_RECHECK_MS = 1_000;

/** SDK errors after which the connection itself is still sound (the adapter answered, or we gave up waiting). */
const CONNECTION_KEEPING_SDK_CODES = new Set<string>([
  SdkErrorCode.RequestTimeout,
  SdkErrorCode.InvalidResult,
  SdkErrorCode.UnsupportedResultType,
  SdkErrorCode.InputRequiredRoundsExceeded,
]);

/**
 * One MCP client connection to one adapter, opened lazily and opened again after it fails, plus the
 * adapter's cached tool listing. Connection-level failures drop the client, so an adapter that went away and
 * came back is reached again by the next call without restarting anything.
 */
export class AdapterConnection {
  private client: Client | null = null;
  private connecting: Promise<Client> | null = null;
  private listing: AdapterListing | null = null;
  private refreshing: Promise<AdapterListing> | null = null;
  private lastKnownTools: Tool[] = [];
  private closed = false;

  constructor(
    readonly name: string,
    readonly url: URL,
    private readonly options: AdapterConnectionOptions,
  ) {}

  /**
   * The adapter's tools. A reachable listing is trusted for the TTL and, once stale, still served (up to three TTLs)
   * while a refresh runs in the background. An unreachable one is trusted for at most a second; after that the
   * adapter is asked again before answering.
   */
  async currentListing(): Promise<AdapterListing> {
    const fresh = this.freshListing();
    if (fresh) return fresh;
    const listing = this.listing;
    const age = listing ? Date.now() - listing.checkedAt : Infinity;
    const refresh = this.refresh();
    if (listing && listing.reachable && age < this.options.availabilityTtlMs * STALE_SERVE_FACTOR) {
      return listing;
    }
    return refresh;
  }

  /** The last listing, however old (null before the first answer or failure). */
  knownListing(): AdapterListing | null {
    return this.listing;
  }

  /** The cached listing while it is trusted as it is (see currentListing), else null: then ask currentListing. */
  freshListing(): AdapterListing | null {
    const listing = this.listing;
    if (!listing) return null;
    const trustedMs = listing.reachable ? this.options.availabilityTtlMs : Math.min(this.options.availabilityTtlMs, UNREACHABLE_RECHECK_MS);
    return Date.now() - listing.checkedAt < trustedMs ? listing : null;
  }

  /** Ask the adapter for its tools now (one request in flight at a time). Never rejects. */
  refresh(): Promise<AdapterListing> {
    if (!this.refreshing) {
      this.refreshing = this.fetchListing().finally(() => {
        this.refreshing = null;
      });
    }
    return this.refreshing;
  }

  /** Call `tool` on the adapter within `timeoutMs` (connecting first if needed). Rejects with the SDK's errors. */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: { timeoutMs: number; signal?: AbortSignal; meta?: Record<string, unknown> },
  ): Promise<CallToolResult> {
    const started = Date.now();
    let client: Client;
    try {
      client = await raceDeadline(this.connect(this.options.connectTimeoutMs), options.timeoutMs, options.signal);
    } catch (error) {
      this.noteFailure(error, options.signal);
      throw error;
    }
    const remaining = Math.max(1, options.timeoutMs - (Date.now() - started));
    try {
      // `timeout`/`signal` make the SDK cancel the request on the wire (per-request stream abort on the
      // 2026-07-28 protocol, `notifications/cancelled` on 2025-era connections) before rejecting.
      const request = { name: tool, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) };
      return (await client.callTool(request, { timeout: remaining, signal: options.signal })) as CallToolResult;
    } catch (error) {
      this.noteFailure(error, options.signal);
      throw error;
    }
  }

  /** Forget the connection and the listing. */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    this.connecting = null;
    if (client) await client.close().catch(() => undefined);
  }

  /** Whether an error means the connection itself is gone (so the next call must reconnect). */
  static isConnectionFailure(error: unknown, signal?: AbortSignal): boolean {
    if (signal?.aborted) return false;
    if (error instanceof ProtocolError) return false;
    if (error instanceof SdkError && CONNECTION_KEEPING_SDK_CODES.has(error.code)) return false;
    return true;
  }

  private noteFailure(error: unknown, signal?: AbortSignal): void {
    if (!AdapterConnection.isConnectionFailure(error, signal)) return;
    const reason = describeError(error);
    this.options.logger.warn('MCP adapter connection failed; reconnecting on next use', { adapter: this.name, url: this.url.href, reason });
    this.dropClient();
    this.listing = { reachable: false, tools: this.lastKnownTools, checkedAt: Date.now(), error: reason };
  }

  private async fetchListing(): Promise<AdapterListing> {
    try {
      const client = await this.connect(this.options.connectTimeoutMs);
      const { tools } = await client.listTools(undefined, { timeout: this.options.connectTimeoutMs, cacheMode: 'refresh' });
      const wasReachable = this.listing?.reachable;
      this.lastKnownTools = tools;
      this.listing = { reachable: true, tools, checkedAt: Date.now() };
      if (wasReachable === false) this.options.logger.info('MCP adapter is reachable again', { adapter: this.name, url: this.url.href });
      return this.listing;
    } catch (error) {
      const reason = describeError(error);
      if (this.listing?.reachable !== false) {
        this.options.logger.warn('MCP adapter is unreachable', { adapter: this.name, url: this.url.href, reason });
      }
      if (AdapterConnection.isConnectionFailure(error)) this.dropClient();
      this.listing = { reachable: false, tools: this.lastKnownTools, checkedAt: Date.now(), error: reason };
      return this.listing;
    }
  }

  private connect(timeoutMs: number): Promise<Client> {
    if (this.closed) return Promise.reject(new Error(`the connection to adapter '${this.name}' is closed`));
    if (this.client) return Promise.resolve(this.client);
    if (!this.connecting) {
      const attempt = this.openClient(timeoutMs);
      this.connecting = attempt;
      attempt.then(
        (client) => {
          if (this.connecting === attempt) {
            this.connecting = null;
            if (this.closed) void client.close().catch(() => undefined);
            else this.client = client;
          }
        },
        () => {
          if (this.connecting === attempt) this.connecting = null;
        },
      );
    }
    return this.connecting;
  }

  private async openClient(timeoutMs: number): Promise<Client> {
    // 'auto' probes for the 2026-07-28 protocol and falls back to the 2025 handshake for older servers.
    const client = new Client(this.options.clientInfo, { versionNegotiation: { mode: 'auto' } });
    client.onerror = (error) => this.options.logger.debug('MCP client error', { adapter: this.name, reason: error.message });
    const transport = new StreamableHTTPClientTransport(this.url);
    try {
      await client.connect(transport, { timeout: timeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    client.onclose = () => {
      if (this.client === client) this.client = null;
    };
    return client;
  }

  private dropClient(): void {
    const client = this.client;
    this.client = null;
    if (client) void client.close().catch(() => undefined);
  }
}

/** Settle with `promise`, or reject like the SDK does when the caller's deadline passes or its signal aborts first. */
function raceDeadline<T>(promise: Promise<T>, timeoutMs: number, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => finish(() => reject(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs }))),
      timeoutMs,
    );
    const onAbort = () => finish(() => reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted')));
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      settle();
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(error)),
    );
  });
}

/** A one-line reason for logs and error messages, following `cause` for network errors. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error && cause.message && cause.message !== error.message) {
    const code = (cause as { code?: unknown }).code;
    return `${error.message} (${typeof code === 'string' ? `${code}: ` : ''}${cause.message})`;
  }
  return error.message;
}
