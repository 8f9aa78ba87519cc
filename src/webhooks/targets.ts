import type { Store } from '../store/index.js';

export interface WebhookTarget {
  url: string;
  secret: string | null;
}

/**
 * Where each application's webhooks go: its own setting (tenant.webhookConfig, persisted) or the
 * server-wide default (--webhook-url/--webhook-secret, replaced in memory by a PUT for all).
 * Looked up at every attempt, so a new URL also redirects pending retries.
 */
export class WebhookTargets {
  #default: WebhookTarget | null;

  constructor(
    private readonly store: Store,
    defaultTarget: WebhookTarget | null | undefined,
  ) {
    this.#default = defaultTarget?.url ? defaultTarget : null;
  }

  get default(): WebhookTarget | null {
    return this.#default;
  }

  of(application: string): WebhookTarget | null {
    return this.store.tenant(application).webhookConfig ?? this.#default;
  }

  /** One application (null drops its own setting), or no application: the default for all, dropping per-application ones. */
  async configure(application: string | undefined, target: WebhookTarget | null): Promise<void> {
    if (application !== undefined) {
      await this.store.update(application, (t) => {
        t.webhookConfig = target;
      });
      return;
    }
    this.#default = target;
    const overridden = this.store.applications().filter((a) => this.store.tenant(a).webhookConfig !== null);
    await Promise.all(overridden.map((a) => this.store.update(a, (t) => void (t.webhookConfig = null))));
  }
}
