import { Type } from 'typebox';

/**
 * The replay file format (`mock-server replay`). A step has exactly one kind: replay.ts checks that
 * by hand, then the step against the schema of its kind, so a message names the field at fault
 * rather than a union of kinds. What no schema can say (a `${name}` no earlier step captures, a body
 * with GET, CONNECT...) is checked there too. A description says what a value must be: it is the
 * message when the value is not that.
 */

/** RFC 9110 token: header names and methods. */
const TOKEN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";
/** What fetch sends as a header value: one line of Latin-1. */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const closed = { additionalProperties: false };
const Name = Type.Optional(Type.String({ description: 'a string' }));
const OneLine = Type.String({ pattern: HEADER_VALUE.source, description: 'a one-line string' });
const Headers = Type.Record(Type.String(), Type.Union([OneLine, Type.Number(), Type.Boolean()]), { propertyNames: { pattern: TOKEN }, description: 'a mapping of header names to values' });
const Http = Type.Object(
  {
    method: Type.Optional(Type.String({ pattern: TOKEN, description: 'an HTTP method such as GET, POST, PUT, PATCH or DELETE' })),
    path: Type.String({ pattern: '^/', description: 'a path starting with /' }),
    body: Type.Optional(Type.Unknown()),
    headers: Type.Optional(Headers),
  },
  { ...closed, description: 'a mapping with path (and method, body, headers)' },
);
/** Names for `${name}`. */
const Capture = Type.Optional(
  Type.Record(Type.String(), Type.String({ pattern: '^(status|body(\\.[^.]+)*)$', description: 'status, body or a path such as body.items.0.uuid' }), {
    propertyNames: { pattern: '^\\w+$' },
    description: 'a mapping of names to body.… paths',
  }),
);
/** Default: status 200. */
const Expect = Type.Optional(
  Type.Object(
    { status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599, description: 'an HTTP status, 100 to 599' })), body: Type.Optional(Type.Unknown()) },
    { ...closed, description: 'a mapping with status and/or body' },
  ),
);

export const ReplayStepSchemas = {
  request: Type.Object({ name: Name, request: Http, capture: Capture, expect: Expect }, closed),
  control: Type.Object({ name: Name, control: Http, capture: Capture, expect: Expect }, closed),
  header: Type.Object({ name: Name, header: Headers }, closed),
  /** Waits until the receiver holds this many webhooks. */
  wait_webhooks: Type.Object({ name: Name, wait_webhooks: Type.Integer({ minimum: 0, description: 'a whole number >= 0' }) }, closed),
  /** Each payload must match the webhook at the same position (fields given are compared). */
  expect_webhooks: Type.Object(
    { name: Name, expect_webhooks: Type.Array(Type.Object({}, { description: 'a mapping of webhook fields' }), { description: 'a list of webhook fields to compare' }) },
    closed,
  ),
};

export const ReplayFileSchema = Type.Object(
  {
    name: Name,
    application: Type.Optional(Type.String({ pattern: '^[\\x21-\\x7e]([\\x20-\\x7e]*[\\x21-\\x7e])?$', description: 'a non-empty string of printable ASCII (it is sent as a header)' })),
    base_path: Type.Optional(Type.String({ pattern: '^(/\\S*)?$', description: 'empty or a path starting with /' })),
    steps: Type.Array(Type.Object({}, { description: `a mapping with one of request, control, header, wait_webhooks, expect_webhooks` }), { minItems: 1, description: 'a non-empty list' }),
  },
  { ...closed, description: 'a mapping with steps' },
);
