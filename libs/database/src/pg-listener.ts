import pg from 'pg';
import { connectionOptions } from './pg-pool.js';

/**
 * A dedicated Postgres connection that LISTENs on one channel. When the link drops it reconnects
 * (every second until it succeeds) and then calls `onReconnect`: notifications sent while it was
 * away are lost, so the owner re-reads whatever it was waiting for.
 */
export class PgListener {
  private client: pg.Client | null = null;
  private stopped = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly channel: string,
    private readonly onPayload: (payload: string) => void,
    private readonly onReconnect: () => void = () => undefined,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a plain channel name: ${channel}`);
  }

  /** Connects and LISTENs; rejects if the first connection fails. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(connectionOptions(this.databaseUrl));
    client.on('notification', (message) => {
      if (message.channel === this.channel && message.payload !== undefined) this.onPayload(message.payload);
    });
    client.on('error', () => {
      if (this.client !== client) return;
      this.client = null;
      void client.end().catch(() => undefined);
      this.reconnectSoon();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
  }

  private reconnectSoon(): void {
    setTimeout(() => {
      if (this.stopped) return;
      this.connect().then(this.onReconnect, () => this.reconnectSoon());
    }, 1000).unref();
  }
}
