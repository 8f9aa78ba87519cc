/**
 * What the integration report can find in a partner's client (docs/report.md
 * documents each id). A finding's id is stable: CI jobs and people refer to it. Advice names headers
 * as `{prefix}Version`: the report writes the server's --header-prefix in their place, and the
 * version the client sends elsewhere (else an example) in place of `{version}`.
 */
export type Severity = 'error' | 'warning' | 'info';

export interface FindingKind {
  severity: Severity;
  /** What happened, in one line. */
  message: string;
  /** What to do, in one line. */
  advice: string;
}

const kind = (severity: Severity, message: string, advice: string): FindingKind => ({ severity, message, advice });

/** Findings about how requests are built and what the client reads, seen on answered requests. */
const USAGE = {
  'unknown-query-parameter': kind('warning', 'A query parameter the operation does not take was sent (it is ignored)', 'Check the parameter names against the operation in /docs: a misspelt filter silently returns everything.'),
  'value-outside-enum': kind('error', 'A value outside the allowed list was sent (answered 400)', 'Send one of the values the operation lists in /docs.'),
  'unknown-body-field': kind('warning', 'A request body field the operation does not take was sent (it is ignored)', 'Check the field names against the request body in /docs: a misspelt field silently falls back to its default.'),
  'missing-body-field': kind('error', 'A required request body field was missing (answered 400)', 'Send every field the request body in /docs marks required.'),
  'deprecated-operation': kind('warning', 'A deprecated operation was used (it may be removed)', 'Move to the operation /docs names in its place (POST /login for GET /login, /activities and /categories for /events and /verticals, reviews for comments).'),
  'deprecated-field': kind('warning', 'A deprecated parameter or body field was sent', 'Use the field that replaces it (category_in for vertical_in, uuid for the numeric order id).'),
  'token-in-query': kind('error', 'The access token was sent as a query parameter: the service reads it only from the Authorization header', 'Send Authorization: Bearer <access_token> and keep tokens out of URLs (they end up in logs).'),
  'no-version-header': kind('warning', 'Requests without the version header: the service then answers with its latest version, which may change', 'Pin the version you were certified on: send {prefix}Version on every request, {version}.'),
  'unknown-version': kind('warning', 'A version header the service does not document (3.0.0 to 3.5.0; stable 3.4.0): the mock answers it as the latest, the service may not', 'Send {prefix}Version with the version you were certified on, {version}.'),
  'unsupported-locale': kind('warning', 'An Accept-Language the service does not support: answered in the fallback language (en-US)', 'Send one of en-US, en-GB, it-IT, de-DE, fr-FR, es-ES (or their two-letter language).'),
  'code-for-uuid': kind('error', "An order identifier or an order item's code was sent where the path takes a uuid (answered 404)", "Use the order's and the item's uuid in paths; identifier and code are for people (vouchers, emails)."),
  'cancel-without-refund-policies': kind('warning', "An order item was cancelled without reading that item's refund policies first", 'Read GET /orders/{order}/items/{item}/refund-policies before a cancellation and show the customer what they get back.'),
  'customer-without-schema': kind('warning', "Customer info was sent without reading that cart's customer schema first", 'Read GET /carts/{cart}/customer/schema: it lists the fields and the extra customer data each activity asks for.'),
  'participants-without-schema': kind('warning', "Participants were sent without reading that cart item's participants schema first", 'Read GET /carts/{cart}/items/{item}/participants/schema for every item (a 404 means none needed): it lists the fields per person and how many.'),
  'language-not-offered': kind('error', 'An item was added in a language the activity does not offer, or without the language it needs (answered 400)', "Pick the item's language from the slot's languages in GET /activities/{uuid}/dates/{day}."),
  'language-ignored': kind('warning', 'An item was added with a language for an activity that offers none: the language was dropped', 'Send language only when the slot in GET /activities/{uuid}/dates/{day} lists languages; do not promise the customer a guided language.'),
  'pickup-ignored': kind('warning', 'An item was added with a pickup for an activity that has none: the pickup was dropped', 'Send pickup only for activities whose order_box_elements say tours-and-activities-with-pickup (GET /activities/{uuid}/pickups).'),
  'source-in-extra-data': kind('warning', 'POST /orders carried source inside extra_data: from version 3.5.0 only the source field is read, so it was ignored', 'Send "source" as a field of the order body (or pin {prefix}Version below 3.5.0 while you migrate).'),
  'token-not-reused': kind('warning', 'More than 3 logins within one token lifetime while a token was still valid', 'Keep the token from POST /login and reuse it until it expires (expires_in), instead of logging in for each call.'),
  'order-polling': kind('warning', 'One order was polled more than once a second for over 10 seconds', 'Use the "Update order item" webhook for status changes; poll no more than every few seconds, with a backoff.'),
  'retry-without-change': kind('warning', 'The same failing request was sent again unchanged, 3 times or more in a row, with the same answer', 'A 4xx does not go away by itself: read {code, message}, fix the request (or the state it depends on), and retry only what can succeed.'),
  'order-not-paid': kind('warning', 'An order was created and never paid: it stays unpaid and never gets vouchers', 'Create the order only when the payment is guaranteed, and pay it right after (POST /payments/no/payment, or a payment method).'),
  'paid-order-not-read': kind('warning', "An order was paid while some of its items were not OK yet, and was never read again for their statuses", 'Items can stay PENDING after the payment: read GET /orders/{uuid} (or take the "Update order item" webhook) until each item is OK or KO before telling the customer.'),
  'webhook-failed': kind('error', 'A webhook delivery ended failed: the receiver answered something other than 200, timed out or could not be reached', 'Answer 200 (only 200 counts) within 5 s; `mock-server webhooks check` tests the receiver.'),
  'webhook-slow': kind('warning', 'The webhook receiver answered slower than 5 s', 'Answer as soon as the delivery is stored, and do slow work after answering.'),
} as const satisfies Record<string, FindingKind>;

/** Findings for refusals: each 4xx the mock answered, by its reason (refusals.ts tells which). */
const REFUSALS = {
  'missing-application-header': kind('error', 'A request without the application header (answered 400 code 2271)', 'Send {prefix}Application with your application value on every request, /login included.'),
  'invalid-market': kind('error', 'A market the service does not know (answered 400 code -1)', 'Send {prefix}Market with your assigned market code (GET /markets), or leave it out for us.'),
  'invalid-currency': kind('error', 'A currency the service does not offer (answered 400)', 'Send {prefix}Currency with a code from GET /currencies, or leave it out for the market\'s currency.'),
  'invalid-version': kind('error', 'A malformed version header (answered 400)', 'Send {prefix}Version as three numbers, {version}.'),
  'invalid-credentials': kind('error', 'POST /login (or /refresh) refused the client credentials (answered 401)', 'Send the client_id and client_secret you were issued, for the application they belong to.'),
  'authentication-required': kind('error', 'An operation that needs a bearer token was called without one (answered 401)', 'Log in first (POST /login) and send Authorization: Bearer <access_token>.'),
  'invalid-token': kind('error', 'A bearer token the service does not know, or a malformed Authorization header (answered 401)', 'Send exactly Authorization: Bearer <access_token> as POST /login gave it; log in again when in doubt.'),
  'token-of-other-application': kind('error', 'A token issued for another application was used (answered 401)', 'Tokens belong to the application that logged in: log in with this application header.'),
  'expired-token': kind('warning', 'A token was used after it expired (answered 401)', 'Refresh the token before expires_in has passed (POST /login or POST /refresh).'),
  'missing-scope': kind('error', 'The token lacks the scope the operation needs (answered 403)', 'Ask for the scope with your credentials (order-item-cancellation, no-payment, comment), or do not offer the operation.'),
  'activity-not-accessible': kind('error', 'An activity that is not published (DRAFT or REVIEW) was asked for (answered 403)', 'Offer only activities the listings return; drop ids that answer 403.'),
  'unknown-route': kind('error', 'A path the API does not have (answered 404)', 'Check the method and path against /docs (and the base path).'),
  'whole-order-cancellation': kind('error', 'A whole order was cancelled with DELETE /orders/{uuid}: the API has no such operation (answered 404)', 'Cancel each item: DELETE /orders/{order}/items/{item}, after reading its refund policies.'),
  'id-of-other-application': kind('error', 'A cart or order created under another application header was used (answered 404 code 1400)', 'Send the same {prefix}Application on every request: a cart or order belongs to the application that created it (look for two application names in the client\'s configuration).'),
  'not-found': kind('error', 'A resource that does not exist was asked for (answered 404 code 1400)', 'Use ids exactly as the API answered them, in the same application; carts without an order expire after 3 months.'),
  'invalid-value': kind('error', 'A parameter or body value that breaks its rule (answered 400)', 'Send the value in the type, format and range the operation documents in /docs.'),
  'invalid-json-body': kind('error', 'A request body that is not JSON, or empty where one is needed (answered 400)', 'Send a JSON body (JSON.stringify it) with Content-Type: application/json.'),
  'unsupported-media-type': kind('error', 'A body with a Content-Type other than JSON (answered 415)', 'Send Content-Type: application/json.'),
  'date-range-invalid': kind('error', 'A date range that ends before it starts, or before today (answered 400 code 1440)', 'Send date_from <= date_to, both today or later.'),
  'no-schedule': kind('warning', 'A day, ticket count or pickup with no schedule (answered 404 code 1402)', 'Offer only the days GET /activities/{uuid}/dates lists, and the pickups of the activity.'),
  'date-unavailable': kind('warning', 'A day that is unavailable (answered 422 code 2201)', 'Let the customer pick another day; re-read GET /activities/{uuid}/dates.'),
  'pickup-required': kind('error', 'A pickup activity was asked for without a pickup (answered 400)', 'Read GET /activities/{uuid}/pickups and send the chosen pickup uuid (dates, day schedule and cart item).'),
  'pickup-unknown': kind('error', 'A pickup that is not one of the activity\'s (answered 400 or 404)', 'Send a pickup uuid from GET /activities/{uuid}/pickups of the same activity.'),
  'product-unknown': kind('error', 'A product_identifier that is not a product of the catalog or of that activity (answered 400)', 'Send a product_id exactly as GET /activities/{uuid}/dates/{day} gave it; do not build or cache them.'),
  'quantity-outside-limits': kind('error', "A quantity outside the product's min_buy and max_buy (answered 400)", 'Keep quantity between the min_buy and max_buy of the product in the day schedule.'),
  'not-enough-availability': kind('warning', 'More tickets than are left were asked for (answered 400 or 404)', "Check the slot's availability in GET /activities/{uuid}/dates/{day} before adding, and re-read it after a refusal."),
  'past-cutoff': kind('warning', 'A slot past its cutoff time was booked (answered 400 or 404)', 'Read the day schedule close to booking (never cache /dates): slots inside cutoff_time disappear from it.'),
  'cart-full': kind('error', 'More than 100 items in one cart (answered 400)', 'Split the booking into several carts.'),
  'cart-locked': kind('error', 'A cart already connected to an order was changed (answered 423 code -1)', 'Once POST /orders succeeded, the cart is closed: create a new cart for changes.'),
  'order-without-customer': kind('error', 'POST /orders for a cart without its customer (answered 400)', 'PUT /carts/{cart}/customer (after reading its schema) before POST /orders.'),
  'order-without-participants': kind('error', 'POST /orders for a cart whose items still need participant info (answered 400)', 'For every item, read GET /carts/{cart}/items/{item}/participants/schema and PUT the participants before POST /orders.'),
  'order-without-extra-customer-data': kind('error', 'POST /orders for a cart without the extra customer data its activities ask for (answered 400)', 'Send extra_customer_data, keyed by activity uuid, with the customer (the cart\'s customer schema lists it).'),
  'order-from-empty-cart': kind('error', 'POST /orders for an empty cart (answered 400)', 'Add items (POST /carts/{cart}/items) before ordering.'),
  'customer-invalid': kind('error', "Customer info that does not match the cart's customer schema (answered 400)", "Fill the fields as GET /carts/{cart}/customer/schema says (required fields, formats, NO/YES flags)."),
  'participants-invalid': kind('error', "Participants that do not match the item's participants schema (answered 400)", 'Send one participant per unit of quantity, with the fields GET /carts/{cart}/items/{item}/participants/schema requires.'),
  'participants-not-required': kind('warning', 'Participants were sent for an item that needs none (answered 404)', 'Read the participants schema first: a 404 there means the item needs no participant info.'),
  'already-paid': kind('warning', 'An order that was paid already was paid again (answered 423)', 'Pay once; on a timeout, read GET /orders/{uuid} before paying again.'),
  'payment-not-allowed': kind('error', 'The no-payment flow for an order above zero without the no-payment permission (answered 422)', 'Log in with a client that has the no-payment scope, or pay with a payment method.'),
  'not-cancellable': kind('warning', "An order item was cancelled in a status that does not allow it (answered 409)", 'Cancel only OK items; read the order (or take the webhook) to know each item\'s status.'),
  'voucher-not-ready': kind('warning', 'A voucher was asked for before its item was confirmed (answered 409)', 'Ask for vouchers once the item is OK (GET /orders/{uuid} lists voucher links only then).'),
  'webhook-not-configured': kind('warning', 'A webhook was asked to be sent again while no webhook URL is configured (answered 400)', 'Set the receiver first (with the mock: --webhook-url or PUT /__admin/webhooks/config).'),
  'client-error': kind('warning', 'Answered with a 4xx the report has no specific rule for', 'Read the answer\'s {code, message}: it says what to change; do not retry a request that cannot succeed.'),
} as const satisfies Record<string, FindingKind>;

/** Findings about the service behind `mock-server proxy`, not about the client: info, so they never fail a report. */
const UPSTREAM = {
  'upstream-schema-drift': kind('info', 'The upstream answered outside the API document (mock-server proxy)', 'Nothing to fix in the client if it copes: the real service departs from its document here. Code for what it answers, and tell the vendor.'),
} as const satisfies Record<string, FindingKind>;

export const FINDINGS = { ...USAGE, ...REFUSALS, ...UPSTREAM } as const satisfies Record<string, FindingKind>;

export type FindingId = keyof typeof FINDINGS;
export type RefusalId = keyof typeof REFUSALS;

/** The booking-flow steps the report's coverage lists, in the order of a booking. */
export const STEPS = [
  'login', 'search', 'dates', 'day schedule', 'cart', 'add item', 'customer schema', 'customer info', 'participants',
  'order', 'no-payment', 'order read with voucher links', 'voucher PDF', 'refund policies', 'cancellation', 'refunds read',
  'webhook answered 200',
] as const;
export type Step = (typeof STEPS)[number];

/** Error paths the application met. */
export const ERROR_PATHS = ['4xx answered', 'injected fault', 'Prefer header'] as const;
export type ErrorPath = (typeof ERROR_PATHS)[number];

/** Partner operations (method and route below the base path) that are a step of a booking once answered 2xx. */
export const STEP_OF: Record<string, Step> = {
  'POST /login': 'login',
  'GET /activities/:activityUuid/dates': 'dates',
  'GET /activities/:activityUuid/dates/:day': 'day schedule',
  'POST /carts': 'cart',
  'POST /carts/:cartUuid/items': 'add item',
  'GET /carts/:cartUuid/customer/schema': 'customer schema',
  'PUT /carts/:cartUuid/customer': 'customer info',
  'PUT /carts/:cartUuid/items/:cartItemUuid/participants': 'participants',
  'POST /orders': 'order',
  'POST /payments/no/payment': 'no-payment',
  'GET /orders/:orderUuid/activities/:activityUuid/voucher': 'voucher PDF',
  'GET /orders/:orderUuid/items/:orderItemUuid/refund-policies': 'refund policies',
  'DELETE /orders/:orderUuid/items/:orderItemUuid': 'cancellation',
  'GET /orders/:orderUuid/refunds': 'refunds read',
};
/** Every listing of activities is a search: /activities, and those of a city, category, country or venue. */
export const LISTING = /^GET (\/[\w-]+\/:\w+)?\/activities$|^GET \/events$/;
