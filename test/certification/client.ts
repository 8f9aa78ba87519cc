// A partner's integration for the certification tests: a client of the partner API and a webhook
// receiver with its own small "system" of bookings. It plays a run from the run's requirements
// alone (their setup fields), as a partner's CI would; a flawed integration turns one habit off.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';

/* eslint-disable @typescript-eslint/no-explicit-any -- answers are the API's JSON, read as a client does */

export const SECRET = `whsec_${Buffer.from('certification receiver secret').toString('base64')}`;
const LEAD = { firstname: 'Ada', lastname: 'Lovelace', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };

/** What a flawed integration does differently; each breaks one requirement of the suite. */
export interface Flaws {
  loginPerCall?: boolean;
  dropLanguageOnce?: boolean;
  skipSearch?: boolean;
  skipDatesList?: boolean;
  skipVoucher?: boolean;
  skipOrderRead?: boolean;
  wrongRefusalAnswer?: boolean;
  skipPickup?: boolean;
  skipRefundPolicies?: boolean;
  skipCancellationError?: boolean;
  refuseDuplicates?: boolean;
  retryAtOnce?: boolean;
  repeat4xx?: boolean;
  acceptBadSignatures?: boolean;
  unknownRoute?: boolean;
}

/** The receiver: checks Standard Webhooks signatures, keeps one booking per item, answers 200 (or 401 to a bad signature). */
export async function receiver(flaws: Flaws = {}) {
  const verifier = new Webhook(SECRET);
  const seen = new Map<string, number>();
  const bookings = new Map<string, { status: string; version: number }>();
  const got: Array<{ id: string; status: string; item: string; answered: number }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      let payload: any;
      try {
        payload = verifier.verify(body, req.headers as Record<string, string>);
      } catch {
        if (!flaws.acceptBadSignatures) {
          got.push({ id, status: 'bad signature', item: '', answered: 401 });
          return res.writeHead(401).end();
        }
        payload = JSON.parse(body);
      }
      const times = (seen.get(id) ?? 0) + 1;
      seen.set(id, times);
      const answer = times > 1 && flaws.refuseDuplicates ? 409 : 200;
      got.push({ id, status: payload.order_item_status, item: payload.order_item_uuid, answered: answer });
      const known = bookings.get(payload.order_item_uuid);
      const version = Number(payload.order_item_version);
      if (!known || known.version < version) bookings.set(payload.order_item_uuid, { status: payload.order_item_status, version });
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    bookings,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
export type Receiver = Awaited<ReturnType<typeof receiver>>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits on a condition (bounded). */
export async function until<T>(what: string, fn: () => T | Promise<T>, ms = 60_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Fills a JSON schema's required fields the way a form would. */
function fillSchema(schema: any): any {
  const out: Record<string, unknown> = {};
  for (const name of schema?.required ?? []) {
    const p = schema.properties?.[name] ?? {};
    out[name] = p.enum ? p.enum[0] : p.type === 'object' ? fillSchema(p) : p.type === 'number' || p.type === 'integer' ? 1 : p.format === 'email' ? 'someone@example.com' : p.format === 'date' ? '1990-01-01' : 'Ada';
  }
  return out;
}

export interface Play {
  application: string;
  /** Bearer for the control API on a shared sandbox (the partner's own token is used when absent). */
  controlToken?: string;
  credentials: { client_id: string; client_secret: string };
  flaws?: Flaws;
  receiver: Receiver;
  /** Play this run (one `mock-server certify` started) instead of starting one. */
  run?: string;
  /** Questions left for someone else to answer (the dashboard's form). */
  leaveQuestions?: string[];
}

/**
 * Plays a certification run as a partner's CI does, from the run's requirements (their setup
 * fields); returns the run's id. The application's receiver is set first, with its secret.
 */
export async function playRun(app: FastifyInstance, p: Play): Promise<string> {
  const flaws = p.flaws ?? {};
  const headers: Record<string, string> = { 'x-service-application': p.application, 'x-service-version': '3.5.0', 'accept-language': 'en-US', 'x-service-currency': 'EUR' };
  let token = '';
  const control = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => {
    const res = await app.inject({ method, url: `/__admin${url}`, headers: { authorization: `Bearer ${p.controlToken ?? token}` }, ...(payload ? { payload } : {}) });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : undefined;
  };
  let dropped = false;
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) => {
    if (flaws.loginPerCall && method !== 'GET' && url !== '/login') await login();
    const h: Record<string, string> = { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) };
    if (flaws.dropLanguageOnce && !dropped && url.startsWith('/carts')) {
      dropped = true;
      delete h['accept-language'];
    }
    return app.inject({ method, url: `/api/v3${url}`, headers: h, ...(payload === undefined ? {} : { payload: payload as object }) });
  };
  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown): Promise<any> => {
    const res = await call(method, url, payload);
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : undefined;
  };
  async function login() {
    token = (await ok('POST', '/login', { ...p.credentials, grant_type: 'client_credentials' })).access_token;
  }
  await login();
  await control('PUT', '/webhooks/config', { application: p.application, url: p.receiver.url, secret: SECRET });
  const run = p.run ? await control('GET', `/certifications/${p.run}`) : await control('POST', '/certifications', { application: p.application });
  const setup = Object.fromEntries(run.requirements.map((r: any) => [r.id, r.setup])) as Record<string, any>;
  // The sandbox may not have recorded the last webhook's answer yet: asked again until it has.
  const answer = async (requirement: string, value: string) =>
    p.leaveQuestions?.includes(requirement) ||
    until(`the answer of ${requirement} taken`, async () => {
      const res = await app.inject({ method: 'POST', url: `/__admin/certifications/${run.id}/answers`, headers: { authorization: `Bearer ${p.controlToken ?? token}` }, payload: { requirement, answer: value } });
      if (res.statusCode !== 200 && !/Nothing to check/.test(res.body)) throw new Error(`answer ${requirement}: ${res.statusCode} ${res.body}`);
      return res.statusCode === 200;
    });
  /** Waits for the receiver to take a webhook of the item with that status (after the `from`-th webhook received); resolves to its place. */
  const heard = (item: string, status: string, from = 0) =>
    until(`${status} of ${item}`, () => {
      const i = p.receiver.got.findIndex((g, n) => n >= from && g.item === item && g.status === status && g.answered === 200);
      return i >= 0 ? i + 1 : null;
    });

  /** A booking as a careful client makes it: dates, the day's schedule, the cart, its schemas, the order, the payment. */
  const book = async (activity: string, o: { email?: string; pay?: boolean; skipDates?: boolean } = {}) => {
    const info = await ok('GET', `/activities/${activity}`);
    const pickups = info.order_box_elements?.includes('tours-and-activities-with-pickup') ? await ok('GET', `/activities/${activity}/pickups`) : [];
    const pickup = pickups[0]?.uuid;
    const q = pickup ? `pickup=${pickup}` : '';
    const dates = o.skipDates ? null : await ok('GET', `/activities/${activity}/dates?${q}`);
    const day = dates ? dates.filter((d: any) => !d.sold_out)[5].day : new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
    const [schedule] = await ok('GET', `/activities/${activity}/dates/${day}?${q}`);
    const slot = schedule.groups[0].slots[0];
    const cart = await ok('POST', '/carts');
    const language = slot.languages?.[0]?.code;
    const item = await ok('POST', `/carts/${cart.uuid}/items`, [{ type: 'musement', product_identifier: slot.products[0].product_id, quantity: 1, ...(language ? { language } : {}), ...(pickup ? { pickup } : {}) }]);
    const schema = await ok('GET', `/carts/${cart.uuid}/customer/schema`);
    const ecd = schema.properties.extra_customer_data ? { extra_customer_data: fillSchema(schema.properties.extra_customer_data) } : {};
    await ok('PUT', `/carts/${cart.uuid}/customer`, { ...LEAD, email: o.email ?? 'ada@example.com', ...ecd });
    const people = await call('GET', `/carts/${cart.uuid}/items/${item.uuid}/participants/schema`);
    if (people.statusCode === 200) await ok('PUT', `/carts/${cart.uuid}/items/${item.uuid}/participants`, [fillSchema(people.json().properties.participants.items)]);
    const order = await ok('POST', '/orders', { cart_uuid: cart.uuid, email_notification: 'NONE' });
    if (o.pay === false) return { order: order.uuid, item: order.items[0].uuid, code: order.items[0].code };
    const paid = await ok('POST', '/payments/no/payment', { uuid: order.uuid });
    return { order: paid.uuid, item: paid.items[0].uuid, code: paid.items[0].code };
  };
  const cancel = async (b: { order: string; item: string }, readPolicies = true) => {
    if (readPolicies) await ok('GET', `/orders/${b.order}/items/${b.item}/refund-policies`);
    await ok('DELETE', `/orders/${b.order}/items/${b.item}`, { cancellation_reason: 'CANCELLED-BY-CUSTOMER' });
  };

  const steps: Record<string, () => Promise<unknown>> = {
    search: async () => flaws.skipSearch || (await ok('GET', '/activities?limit=5&text=tour')),
    'dates-before-cart': () => book(setup['dates-before-cart'].activity, { pay: false, skipDates: flaws.skipDatesList }),
    'instant-confirmation': async () => {
      const s = setup['instant-confirmation'];
      const b = await book(s.activity);
      if (flaws.skipVoucher) return;
      const voucher = await ok('GET', `/orders/${b.order}/items/${b.item}/voucher/booking`);
      await answer('instant-confirmation', voucher.barcodes[0].code);
    },
    'confirms-later': async () => {
      const s = setup['confirms-later'];
      const b = await book(s.activity, { email: s.lead_booker_email });
      await heard(b.item, 'OK');
      if (!flaws.skipOrderRead) await ok('GET', `/orders/${b.order}`);
    },
    refusal: async () => {
      const s = setup.refusal;
      const b = await book(s.activity, { email: s.lead_booker_email });
      await heard(b.item, 'KO');
      await answer('refusal', flaws.wrongRefusalAnswer ? 'OK' : (p.receiver.bookings.get(b.item)?.status as string));
    },
    'required-details': async () => {
      const s = setup['required-details'];
      await book(s.activity, { pay: false });
      if (!flaws.skipPickup) await book(s.pickup_activity, { pay: false });
    },
    cancellation: async () => {
      const b = await book(setup.cancellation.activity);
      await heard(b.item, 'OK');
      await cancel(b, !flaws.skipRefundPolicies);
      await heard(b.item, 'REFUNDED');
    },
    'cancellation-error': async () => {
      if (flaws.skipCancellationError) return;
      const s = setup['cancellation-error'];
      const b = await book(s.activity, { email: s.lead_booker_email });
      await heard(b.item, 'OK');
      const mark = p.receiver.got.length;
      await cancel(b);
      // The booking stands: OK again after the failed cancellation (steps two seconds apart, or at once on a late tick).
      await heard(b.item, 'OK', await heard(b.item, 'CANCELLATION_ERROR', mark));
    },
    'duplicate-webhook': async () => {
      const s = setup['duplicate-webhook'];
      const b = await book(s.activity, { email: s.lead_booker_email });
      await until('the duplicate', () => p.receiver.got.filter((g) => g.item === b.item && g.status === 'OK').length >= 2);
      const kept = [...p.receiver.bookings.keys()].filter((item) => item === b.item).length;
      if (!flaws.refuseDuplicates) await answer('duplicate-webhook', String(kept));
    },
    'retry-after': async () => {
      const url = `/activities/${setup['retry-after'].activity}/dates`;
      const first = await call('GET', url);
      if (first.statusCode === 503 && !flaws.retryAtOnce) await sleep(Number(first.headers['retry-after']) * 1000);
      await ok('GET', url);
    },
    'no-blind-retry': async () => {
      const s = setup['no-blind-retry'];
      for (let i = 0; i < (flaws.repeat4xx ? 2 : 1); i++) await call('GET', `/activities/${s.activity}/dates/${s.day}`);
    },
    'clean-report': async () => flaws.unknownRoute && (await call('GET', '/no-such-path')),
  };
  await Promise.all(Object.entries(steps).map(([id, step]) => step().catch((e: Error) => Promise.reject(new Error(`${id}: ${e.message}`)))));
  return run.id;
}
