/**
 * What the integration report can find in a partner's client (docs/report.md
 * documents each id). A finding's id is stable: CI jobs and people refer to it.
 */
export type Severity = 'error' | 'warning' | 'info';

export interface FindingKind {
  severity: Severity;
  /** What happened, in one line. */
  message: string;
  /** What to do, in one line. */
  advice: string;
}

export const FINDINGS = {
  'unknown-query-parameter': {
    severity: 'warning',
    message: 'A query parameter the operation does not take was sent (it is ignored)',
    advice: 'Check the parameter names against the operation in /docs: a misspelt filter silently returns everything.',
  },
  'value-outside-enum': {
    severity: 'error',
    message: 'A value outside the allowed list was sent (answered 400)',
    advice: 'Send one of the values the operation lists in /docs.',
  },
  'unknown-body-field': {
    severity: 'warning',
    message: 'A request body field the operation does not take was sent (it is ignored)',
    advice: 'Check the field names against the request body in /docs.',
  },
  'missing-body-field': {
    severity: 'error',
    message: 'A required request body field was missing (answered 400)',
    advice: 'Send every field the request body in /docs marks required.',
  },
  'no-version-header': {
    severity: 'warning',
    message: 'Requests without the version header: the service then answers with its latest version, which may change',
    advice: 'Pin the version you were certified on: send X-Service-Version (with your header prefix) on every request, e.g. 3.4.0.',
  },
  'unsupported-locale': {
    severity: 'warning',
    message: 'An Accept-Language the service does not support: answered in the fallback language (en-US)',
    advice: 'Send one of en-US, en-GB, it-IT, de-DE, fr-FR, es-ES (or their two-letter language).',
  },
  'code-for-uuid': {
    severity: 'error',
    message: "An order identifier or an order item's code was sent where the path takes a uuid (answered 404)",
    advice: "Use the order's and the item's uuid in paths; identifier and code are for people (vouchers, emails).",
  },
  'cancel-without-refund-policies': {
    severity: 'warning',
    message: "An order item was cancelled without reading that item's refund policies first",
    advice: 'Read GET /orders/{order}/items/{item}/refund-policies before a cancellation and show the customer what they get back.',
  },
  'customer-without-schema': {
    severity: 'warning',
    message: "Customer info was sent without reading that cart's customer schema first",
    advice: 'Read GET /carts/{cart}/customer/schema: it lists the fields and the extra customer data each activity asks for.',
  },
  'language-not-offered': {
    severity: 'error',
    message: 'An item was added in a language the activity does not offer (answered 400)',
    advice: "Pick the item's language from the slot's languages in GET /activities/{uuid}/dates/{day}.",
  },
  'token-not-reused': {
    severity: 'warning',
    message: 'More than 3 logins within one token lifetime while a token was still valid',
    advice: 'Keep the token from POST /login and reuse it until it expires (expires_in), instead of logging in for each call.',
  },
  'expired-token': {
    severity: 'warning',
    message: 'A token was used after it expired (answered 401)',
    advice: 'Refresh the token before expires_in has passed (POST /login or POST /refresh).',
  },
  'order-polling': {
    severity: 'warning',
    message: 'One order was polled more than once a second for over 10 seconds',
    advice: 'Use the "Update order item" webhook for status changes; poll no more than every few seconds, with a backoff.',
  },
  'webhook-failed': {
    severity: 'error',
    message: 'A webhook delivery ended failed: the receiver answered something other than 200, timed out or could not be reached',
    advice: 'Answer 200 (only 200 counts) within 5 s; `mock-server webhooks check` tests the receiver.',
  },
  'webhook-slow': {
    severity: 'warning',
    message: 'The webhook receiver answered slower than 5 s',
    advice: 'Answer as soon as the delivery is stored, and do slow work after answering.',
  },
  'client-error': {
    severity: 'info',
    message: 'Answered with a 4xx',
    advice: 'Make sure the client reads error answers ({code, message}) and does not retry a request that cannot succeed.',
  },
} as const satisfies Record<string, FindingKind>;

export type FindingId = keyof typeof FINDINGS;

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
