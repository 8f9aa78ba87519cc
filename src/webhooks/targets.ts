import type { Store } from '../store/index.js';

export interface WebhookTarget {
  url: string;
  secret: string | null;
}

/**
 * Where each application's webhooks go: its own setting (tenant.webhookConfig), else the server-wide
 * one that PUT /__admin/webhooks/config without an application set, else --webhook-url/--webhook-secret.
 * Both settings are in the state file, so a restart keeps them. Looked up at every attempt, so a new
 * URL also redirects pending retries.
 */
export class WebhookTargets {
  readonly #flags: WebhookTarget | null;

  constructor(
    private readonly store: Store,
    flagsTarget: WebhookTarget | null | undefined,
  ) {
    this.#flags = flagsTarget?.url ? flagsTarget : null;
  }

  get default(): WebhookTarget | null {
    const set = this.store.server().webhook_default;
    return set === undefined ? this.#flags : set;
  }

  of(application: string): WebhookTarget | null {
    return this.store.tenant(application).webhookConfig ?? this.default;
  }

  /** One application (null drops its own setting), or no application: the default for all, dropping per-application ones. */
  async configure(application: string | undefined, target: WebhookTarget | null): Promise<void> {
    if (application !== undefined) {
      await this.store.update(application, (t) => {
        t.webhookConfig = target;
      });
      return;
    }
    await this.store.updateServer((s) => void (s.webhook_default = target));
    const overridden = this.store.applications().filter((a) => this.store.tenant(a).webhookConfig !== null);
    await Promise.all(overridden.map((a) => this.store.update(a, (t) => void (t.webhookConfig = null))));
  }
}
