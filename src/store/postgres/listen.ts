import pg from 'pg';

export const CHANNEL = 'mock_changes';

export interface ListenerOptions {
  config: pg.ClientConfig;
  onMessage(payload: string): void;
  /** After a reconnection: notifications sent meanwhile were missed. */
  onReconnect(): void;
  warn(message: string): void;
}

/**
 * LISTEN on its own connection (a pooled one would be handed to queries and lose it), reconnecting
 * when the connection drops: after 250 ms, doubling up to 5 s, for as long as the store is open.
 */
export class Listener {
  #client: pg.Client | null = null;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  #delay = 250;
  #lost = false;

  constructor(private readonly opts: ListenerOptions) {}

  /** Connects and listens; rejects when the database cannot be reached (at start). */
  async start(): Promise<void> {
    await this.#connect();
  }

  async #connect(): Promise<void> {
    const client = new pg.Client(this.opts.config);
    client.on('notification', (n) => {
      if (n.channel === CHANNEL && n.payload !== undefined) this.opts.onMessage(n.payload);
    });
    client.on('error', () => this.#drop(client));
    client.on('end', () => this.#drop(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (e) {
      client.removeAllListeners('end');
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
      throw e;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    this.#delay = 250;
    if (this.#lost) {
      this.#lost = false;
      this.opts.warn('the LISTEN connection to the database is back');
      this.opts.onReconnect();
    }
  }

  #drop(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = null;
    if (this.#closed) return;
    if (!this.#lost) this.opts.warn('the LISTEN connection to the database was lost; reconnecting');
    this.#lost = true;
    this.#retry();
  }

  #retry(): void {
    if (this.#closed || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#connect().catch(() => {
        this.#delay = Math.min(this.#delay * 2, 5000);
        this.#retry();
      });
    }, this.#delay);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    const c = this.#client;
    this.#client = null;
    await c?.end().catch(() => undefined);
  }
}
