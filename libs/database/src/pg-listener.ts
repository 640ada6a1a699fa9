import pg from 'pg';
import { connectionOptions } from './pg-pool.js';

interface Channel {
  onPayload: (payload: string) => void;
  onReconnect: () => void;
}

/**
 * The process's one dedicated Postgres connection for notifications: each owner LISTENs on a channel of
 * its own through it. When the link drops it reconnects (every second until it succeeds), LISTENs on every
 * channel again and then calls each channel's `onReconnect`: notifications sent while it was away are
 * lost, so each owner re-reads whatever it was waiting for.
 */
export class PgListener {
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private readonly channels = new Map<string, Channel>();
  private stopped = false;

  constructor(private readonly databaseUrl: string) {}

  /**
   * LISTENs on `channel`, connecting first if this is the first channel; rejects if that connection
   * fails (the channel is then not kept). One owner per channel.
   */
  async listen(channel: string, onPayload: (payload: string) => void, onReconnect: () => void = () => undefined): Promise<void> {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a plain channel name: ${channel}`);
    if (this.channels.has(channel)) throw new Error(`already listening on ${channel}`);
    if (this.stopped) throw new Error('the listener is stopped');
    this.channels.set(channel, { onPayload, onReconnect });
    try {
      // A connection made from here on LISTENs on every channel in the map, this one included; one made
      // before gets its own LISTEN (repeating a LISTEN is harmless).
      if (!this.client) await this.connected();
      const client = this.client as pg.Client | null;
      if (client) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      this.channels.delete(channel);
      throw error;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = null;
    this.channels.clear();
    await client?.end().catch(() => undefined);
  }

  /** One connection attempt at a time, whether a first listen or a reconnect asks for it. */
  private connected(): Promise<void> {
    return (this.connecting ??= this.connect().finally(() => (this.connecting = null)));
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(connectionOptions(this.databaseUrl));
    client.on('notification', (message) => {
      if (message.payload !== undefined) this.channels.get(message.channel)?.onPayload(message.payload);
    });
    client.on('error', () => {
      if (this.client !== client) return;
      this.client = null;
      void client.end().catch(() => undefined);
      this.reconnectSoon();
    });
    try {
      await client.connect();
      for (const channel of this.channels.keys()) await client.query(`LISTEN ${channel}`);
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
      // A listen() may have connected meanwhile; the owners missed the gap either way.
      (this.client ? Promise.resolve() : this.connected()).then(
        () => {
          for (const channel of this.channels.values()) channel.onReconnect();
        },
        () => this.reconnectSoon(),
      );
    }, 1000).unref();
  }
}
