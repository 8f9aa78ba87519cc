import type { FindingId } from './findings.js';

/** A 4xx as the client got it, with the operation it answered (`POST /carts/{cartUuid}/items`). */
export interface Refusal {
  method: string;
  /** The operation as the docs write it; for an unknown path, the path as sent. */
  operation: string;
  /** Whether a route matched (false: "No route for …"). */
  routed: boolean;
  status: number;
  code: string;
  message: string;
  /** Which rule of a schema (or of a list a route checks) broke, when one did. */
  validation?: { context: string; keyword: string; field: string };
}

type Test = (r: Refusal) => boolean;
const msg = (re: RegExp): Test => (r) => re.test(r.message);
const all = (...tests: Test[]): Test => (r) => tests.every((t) => t(r));
const status = (...s: number[]): Test => (r) => s.includes(r.status);
const get: Test = (r) => r.method === 'GET' || r.method === 'HEAD';

/**
 * 404s the API documents as "there is none" on reads a correct client makes (an item that needs no
 * participants, an activity without refund policies or bundles): answers, not mistakes.
 */
const NONE = all(get, status(404), msg(/^(No refund policy|No refund policy version|This cart item does not require participant info|Activity \S+ needs no (extra customer data|participant info)|Activity \S+ has no (bundles|content for locale)|No related activities|No languages found|No media found|Cart does not have an associated order|This order item has no provider vouchers)/));

/** First match wins: the specific reasons before the general ones. */
const RULES: Array<[FindingId, Test]> = [
  ['missing-application-header', (r) => r.code === '2271'],
  ['invalid-market', all(status(400), (r) => r.code === '-1')],
  ['invalid-currency', msg(/^Invalid currency /)],
  ['invalid-version', msg(/^Invalid version /)],
  ['code-for-uuid', msg(/this path takes its uuid/)],
  ['language-not-offered', msg(/"language" (must be one of|is required)/)],
  ['expired-token', all(status(401), msg(/^Access token expired/))],
  ['token-of-other-application', all(status(401), msg(/^Access token was issued for application/))],
  ['invalid-token', all(status(401), msg(/^(Invalid access token|Authorization must be)/))],
  ['authentication-required', all(status(401), msg(/^Authentication required/))],
  ['invalid-credentials', status(401)],
  ['missing-scope', all(status(403), msg(/lacks the "[^"]+" scope/))],
  ['activity-not-accessible', all(status(403), msg(/is not accessible/))],
  ['payment-not-allowed', all(status(422), msg(/no-payment permission/))],
  ['date-unavailable', (r) => r.code === '2201'],
  ['date-range-invalid', (r) => r.code === '1440'],
  ['already-paid', all(status(423), msg(/already been paid/))],
  ['cart-locked', all(status(423), (r) => r.code === '-1')],
  ['not-cancellable', all(status(409), msg(/cannot be cancelled in status/))],
  ['voucher-not-ready', all(status(409), msg(/vouchers exist only for OK|is confirmed \(status OK\) yet/))],
  ['participants-not-required', all(status(404), msg(/does not require participant info/))],
  ['order-from-empty-cart', msg(/^Cannot create the order: missing the cart is empty/)],
  ['order-without-customer', msg(/^Cannot create the order: missing the customer/)],
  ['order-without-extra-customer-data', msg(/^Cannot create the order: missing extra customer data/)],
  ['order-without-participants', msg(/^Cannot create the order: missing participant info/)],
  ['customer-invalid', msg(/^customer: /)],
  ['participants-invalid', msg(/^participants: /)],
  ['not-enough-availability', msg(/only \d+ tickets left|Fewer than \d+ tickets left/)],
  ['past-cutoff', msg(/cannot be booked any more|after the cutoff time/)],
  ['quantity-outside-limits', msg(/must be between min_buy/)],
  ['pickup-required', msg(/"pickup" is required/)],
  ['pickup-unknown', msg(/is not a pickup of this activity|^Pickup \S+ is not available for this activity/)],
  ['product-unknown', msg(/"product_identifier" .* is not a product of/)],
  ['no-schedule', (r) => r.code === '1402'],
  ['cart-full', msg(/^A cart holds at most/)],
  ['webhook-not-configured', msg(/^No webhook URL is configured/)],
  ['whole-order-cancellation', (r) => !r.routed && r.method === 'DELETE' && /\/orders\/[^/]+\/?$/.test(r.operation)],
  ['unknown-route', (r) => !r.routed],
  ['unsupported-media-type', status(415)],
  ['invalid-json-body', msg(/^Request body (is not valid JSON|is empty)/)],
  ['value-outside-enum', (r) => r.validation?.keyword === 'enum'],
  ['missing-body-field', (r) => (r.validation?.keyword === 'required' && r.validation.context === 'body') || /^body "[^"]+" is required/.test(r.message)],
  ['invalid-value', all(status(400), (r) => r.code === '0')],
  ['id-of-other-application', all(status(404), msg(/^(Cart|Order) \S+ was created under application /))],
  ['not-found', all(status(404), (r) => r.code === '1400')],
];

/** The finding a refusal counts toward, or null for a documented "none" answer (not a mistake). */
export function classify(r: Refusal): FindingId | null {
  if (NONE(r)) return null;
  for (const [id, test] of RULES) if (test(r)) return id;
  return 'client-error';
}

/**
 * A server message without what changes from one request to the next (ids, codes, numbers, days,
 * values it echoes), so that the same reason groups into one finding however many carts it was met
 * on. Field names stay: they are quoted after their place (`querystring "limit"`) or before a rule
 * (`"language" must be …`); any other quoted text is a value the request sent.
 */
export function normalize(message: string): string {
  return message
    .replace(/"[^"]*"/g, (quoted, at: number, all: string) =>
      /(querystring|body|params|request) $/.test(all.slice(Math.max(0, at - 12), at)) || /^ (is|must|has|items|needs|takes|distance)\b/.test(all.slice(at + quoted.length, at + quoted.length + 10)) ? quoted : '{value}')
    .replace(/\S+ does not exist/g, '{id} does not exist')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '{uuid}')
    .replace(/\bMUS\d+(-\d+)?\b/g, '{code}')
    .replace(/\b[A-Za-z0-9_-]{24,}\b/g, '{id}')
    .replace(/\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?/g, '{day}')
    .replace(/\b\d{2}:\d{2}\b/g, '{time}')
    .replace(/\d+/g, '{n}');
}
