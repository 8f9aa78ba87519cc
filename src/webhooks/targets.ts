import type { Store } from '../store/index.js';
import { redactUrl } from './url.js';

export interface WebhookTarget {
  url: string;
  secret: string | null;
  /** Connect only to public addresses: a receiver a partner set on a shared sandbox. */
  publicOnly?: boolean;
}

/** Where a receiver setting comes from, as GET /__admin/webhooks/config and the banner say it. */
export interface ReceiverSource {
  /** Credentials hidden. */
  url: string;
  /** 'flag': --webhook-url (or its env or config-file key); 'stored': PUT /__admin/webhooks/config. */
  source: 'flag' | 'stored';
  /** When the PUT stored it (the server clock's time), for stored settings. */
  set_at: string | null;
  /** 'own': its own secret; 'server': --webhook-secret; 'none': unsigned. */
  signing: 'own' | 'server' | 'none';
  /** signing is not 'none'. */
  signed: boolean;
}

/**
 * Where each application's webhooks go. One rule:
 * - an application's own setting (PUT /__admin/webhooks/config with `application`) wins for it;
 * - else the server-wide setting: the flag (--webhook-url) at start, replaced by a PUT without an
 *   application until the next start with the flag; `url: null` goes back to the flag (or to none);
 * - a receiver set without its own secret is signed with --webhook-secret when the server has one.
 * Looked up at every attempt, so a new URL also redirects pending retries.
 */
export class WebhookTargets {
  readonly #flagUrl: string | null;
  readonly #serverSecret: string | null;
  readonly #guardPartners: boolean;

  constructor(
    private readonly store: Store,
    flags: { url: string | null; secret: string | null },
    /** A shared sandbox without --allow-private-receivers: receivers partners set reach public addresses only. */
    guardPartners = false,
  ) {
    this.#flagUrl = flags.url || null;
    this.#serverSecret = flags.secret || null;
    this.#guardPartners = guardPartners;
  }

  /** At start: a flag replaces a server-wide setting stored by an earlier run (flags win at start). */
  async start(): Promise<void> {
    if (this.#flagUrl !== null && this.store.server().webhook_default != null) {
      await this.store.updateServer((s) => void delete s.webhook_default);
    }
  }

  get default(): WebhookTarget | null {
    const set = this.store.server().webhook_default;
    if (set) return { url: set.url, secret: set.secret ?? this.#serverSecret };
    return this.#flagUrl === null ? null : { url: this.#flagUrl, secret: this.#serverSecret };
  }

  of(application: string): WebhookTarget | null {
    const own = this.store.tenant(application).webhookConfig;
    if (!own) return this.default;
    const target: WebhookTarget = { url: own.url, secret: own.secret ?? this.#serverSecret };
    if (this.#guardPartners && own.set_by === 'partner') target.publicOnly = true;
    return target;
  }

  /** The secret an application's webhooks are signed with (its receiver's, else the server's), whether or not it has a receiver; null: the server-wide one. */
  secretOf(application: string | null): string | null {
    return (application === null ? this.default : this.of(application))?.secret ?? this.#serverSecret;
  }

  /** The server-wide setting and where it comes from; null when webhooks go nowhere by default. */
  describeDefault(): ReceiverSource | null {
    const set = this.store.server().webhook_default;
    if (set) return this.#describe(set, 'stored');
    return this.#flagUrl === null ? null : this.#describe({ url: this.#flagUrl, secret: null }, 'flag');
  }

  /** What applies to one application (its own setting, else the server-wide one), or with none given, the server-wide one. */
  describe(application?: string): ReceiverSource | null {
    const own = application === undefined ? null : this.store.tenant(application).webhookConfig;
    return own ? this.#describe(own, 'stored') : this.describeDefault();
  }

  /** Each application's own setting. */
  describeApplications(): Record<string, ReceiverSource> {
    const out: Record<string, ReceiverSource> = {};
    for (const a of this.store.applications()) {
      const own = this.store.tenant(a).webhookConfig;
      if (own) out[a] = this.#describe(own, 'stored');
    }
    return out;
  }

  #describe(t: WebhookTarget & { set_at?: string }, source: ReceiverSource['source']): ReceiverSource {
    const signing = t.secret ? 'own' : this.#serverSecret ? 'server' : 'none';
    return { url: redactUrl(t.url), source, set_at: t.set_at ?? null, signing, signed: signing !== 'none' };
  }

  /**
   * One application (null drops its own setting: the server-wide one applies again), or no
   * application: the server-wide setting (null: back to the flag), which also drops every
   * application's own.
   */
  async configure(application: string | undefined, target: WebhookTarget | null, at: Date, setBy: 'admin' | 'partner' = 'admin'): Promise<void> {
    const stored = target && { url: target.url, secret: target.secret, set_at: at.toISOString(), ...(setBy === 'partner' ? { set_by: setBy } : {}) };
    if (application !== undefined) {
      await this.store.update(application, (t) => {
        t.webhookConfig = stored;
      });
      return;
    }
    await this.store.updateServer((s) => {
      if (stored) s.webhook_default = stored;
      else delete s.webhook_default;
    });
    const overridden = this.store.applications().filter((a) => this.store.tenant(a).webhookConfig !== null);
    await Promise.all(overridden.map((a) => this.store.update(a, (t) => void (t.webhookConfig = null))));
  }
}
