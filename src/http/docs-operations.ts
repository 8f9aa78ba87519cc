import { encodeProductId } from '../catalog/schedule.js';

/**
 * What /docs says about each partner operation beyond its route schema: a one-line description,
 * the error answers ({code, message}, the real API's codes) and examples that work against the
 * seeded catalog, so that a booking can be made from Swagger UI's "Try it out" alone.
 * Documentation only: documentHeaders() (docs.ts) merges it into the document, never into the routes.
 */

export interface OperationDoc {
  /** One line: what the operation does. */
  description: string;
  /** Error statuses beyond the ones every operation shares, each with what it means and its codes. */
  errors?: Record<number, string>;
  /** The success status when it is not 200 (e.g. 204), with what it means. */
  success?: { status: number; description: string };
  /** Example request body (for Swagger UI's "Try it out"). */
  body?: unknown;
  /** Example values of path parameters by name. */
  params?: Record<string, unknown>;
  /** Example values of query parameters by name. */
  query?: Record<string, unknown>;
}


// Fixture ids (fixtures/, docs/fixtures.md).
/** The walkthrough's activity: every day, timeslots 10:00 and 15:00, instant confirmation, refund tiers. */
export const EXAMPLE_ACTIVITY = '0f641d85-2046-11e7-9cc9-06a7e332783f';
const PICKUP_ACTIVITY = 'df542cb8-8fca-44d0-94e6-715399c783f0';
const PICKUP = 'c0000000-0000-4000-8000-000000000001';
/** Stand-ins for ids the server makes up: replace with the uuid an earlier answer gave. */
export const CART_PLACEHOLDER = '00000000-0000-4000-8000-00000000ca57';
export const ORDER_PLACEHOLDER = '00000000-0000-4000-8000-0000000000de';
const ITEM_PLACEHOLDER = '00000000-0000-4000-8000-00000000017e';

/**
 * A real bookable day: a week after `now` (UTC; docs.ts examplesOnServerDay passes the server clock's
 * time on every request for the document). The example activity is open every day with a one-hour
 * cutoff, so the day and its 10:00 product are bookable (the walkthrough picks a few days ahead the
 * same way, from GET .../dates).
 */
export function exampleDay(now: Date = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 7)).toISOString().slice(0, 10);
}

/** The 10:00 adult ticket of the example activity on the example day. */
export function exampleProduct(day: string): string {
  return encodeProductId({ activityUuid: EXAMPLE_ACTIVITY, featureCode: 'standard', holderCode: 'adult', day, time: '10:00' });
}

/** Error answers shared by every documented operation. */
export function commonErrors(usesBearer: boolean): Record<number, string> {
  const errors: Record<number, string> = {
    400: 'Missing application header (code 2271), unknown market (code -1), or a parameter or body that breaks its rules (code 0)',
  };
  if (usesBearer) errors[401] = 'Bearer token unknown, expired or issued to another application (code 1401)';
  return errors;
}

const NOT_FOUND = 'No such resource (code 1400)';
const ACTIVITY_ERRORS = { 403: 'Activity not published: DRAFT or REVIEW (code 0)', 404: 'No such activity (code 1400)' };
const CART_LOCKED = "Cart already connected to an order (code -1, state 'closed')";
const NO_TOKEN = 'No bearer token, or one unknown, expired or of another application (code 1401)';

/** The table, keyed by `METHOD path` with the base path left out and {param} placeholders. */
export function operationDocs(now: Date = new Date()): Record<string, OperationDoc> {
  const day = exampleDay(now);
  const activity = { activityUuid: EXAMPLE_ACTIVITY };
  const cart = { cartUuid: CART_PLACEHOLDER };
  const item = { cartUuid: CART_PLACEHOLDER, cartItemUuid: ITEM_PLACEHOLDER };
  const order = { orderUuid: ORDER_PLACEHOLDER };
  const orderItem = { orderUuid: ORDER_PLACEHOLDER, orderItemUuid: ITEM_PLACEHOLDER };
  const city = { cityId: 1 };
  const act = (description: string, errors: Record<number, string> = {}, extra: Partial<OperationDoc> = {}): OperationDoc => ({
    description, errors: { ...ACTIVITY_ERRORS, ...errors }, params: activity, ...extra,
  });
  return {
    // authentication
    'POST /login': {
      description: 'Exchanges client credentials for a bearer token (sandbox: sandbox-client / sandbox-secret).',
      errors: { 401: 'Unknown client, wrong secret or application not allowed for the client (code 1401)' },
      body: { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' },
    },
    'GET /login': {
      description: 'Same as POST /login with the credentials in the query string; kept for old clients.',
      errors: { 401: 'Unknown client, wrong secret or application not allowed for the client (code 1401)' },
      query: { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' },
    },
    'POST /refresh': {
      description: 'Trades a refresh token this application holds for a new access token.',
      errors: { 401: 'Refresh token unknown, expired or of another application (code 1401)' },
    },
    // catalog
    'GET /currencies': { description: 'Lists the currency codes the currency header accepts.' },
    'GET /activities': { description: 'Searches the catalog by text, place, category, price and date, with paging and sorting.' },
    'GET /activities/{activityUuid}': act('Returns one activity with its content, prices, rules and booking type.'),
    'GET /categories': { description: 'Lists the activity categories.' },
    'GET /categories-tree': { description: 'Returns every category as one tree under a root with id 0.' },
    'GET /categories/{categoryId}': { description: 'Returns one category.', errors: { 404: NOT_FOUND }, params: { categoryId: 1 } },
    'GET /categories/{categoryId}/activities': { description: 'Lists the activities of one category.', errors: { 404: NOT_FOUND }, params: { categoryId: 1 } },
    'GET /cities': { description: 'Lists the cities that have activities.' },
    'GET /cities/{cityId}': { description: 'Returns one city.', errors: { 404: NOT_FOUND }, params: city },
    'GET /cities/{cityId}/activities': { description: 'Lists the activities of one city.', errors: { 404: NOT_FOUND }, params: city },
    'GET /cities/{cityId}/categories': { description: 'Lists the categories that have activities in one city.', errors: { 404: NOT_FOUND }, params: city },
    'GET /cities/{cityId}/venues': { description: 'Lists the venues of one city.', errors: { 404: NOT_FOUND }, params: city },
    'GET /countries': { description: 'Lists the countries that have activities.' },
    'GET /countries/{countryId}': { description: 'Returns one country.', errors: { 404: NOT_FOUND }, params: { countryId: 1 } },
    'GET /countries/{countryId}/activities': { description: 'Lists the activities of one country.', errors: { 404: NOT_FOUND }, params: { countryId: 1 } },
    'GET /countries/{countryId}/cities': { description: 'Lists the cities of one country.', errors: { 404: NOT_FOUND }, params: { countryId: 1 } },
    'GET /venues': { description: 'Lists the venues (museums, monuments, parks) activities take place at.' },
    'GET /venues/{venueId}': { description: 'Returns one venue.', errors: { 404: NOT_FOUND }, params: { venueId: 1 } },
    'GET /venues/{venueId}/activities': { description: 'Lists the activities at one venue.', errors: { 404: NOT_FOUND }, params: { venueId: 1 } },
    'GET /venues/{venueId}/comments': { description: 'Lists comments left on the activities of one venue.', errors: { 404: NOT_FOUND }, params: { venueId: 1 } },
    'GET /languages': { description: 'Lists the languages content can be asked in.' },
    'GET /features': { description: 'Lists the feature codes activities are tagged with.' },
    'GET /services': { description: 'Lists the service codes activities are tagged with.' },
    'GET /markets': { description: 'Lists the market codes the market header accepts.' },
    'GET /flavours': { description: 'Lists the flavours (themes) activities are grouped by.' },
    // dates
    'GET /activities/{activityUuid}/dates': act(
      'Lists the days an activity can be booked on, sold-out days flagged; pick one for the next call.',
      { 400: 'End date before start date or before today (code 1440), pickup missing, or a bad parameter (code 0)' },
    ),
    'GET /activities/{activityUuid}/dates/{day}': act(
      "Lists one day's options, timeslots and products; a product_id goes into POST /carts/{cartUuid}/items.",
      { 404: 'No schedule for that activity, day, ticket count or pickup (code 1402)', 422: 'Day temporarily or permanently unavailable: try another (code 2201)' },
      { params: { ...activity, day } },
    ),
    // activity info
    'GET /activities/{activityUuid}/media': act('Lists the images and videos of an activity.'),
    'GET /activities/{activityUuid}/flavours': act('Lists the flavours of an activity.'),
    'GET /activities/{activityUuid}/country': act("Returns the country of the activity's default city."),
    'GET /activities/{activityUuid}/destinations': act('Lists the cities an activity is shown in, the default one marked.'),
    'PUT /activities/{activityUuid}/destinations/{destinationUuid}': act('Adds a destination city to an activity for this application.', { 404: 'No such activity or city (code 1400)' }, { params: { ...activity, destinationUuid: '1' }, success: { status: 204, description: 'Added: no body' } }),
    'DELETE /activities/{activityUuid}/destinations/{destinationUuid}': act('Removes a destination city from an activity for this application.', { 404: 'No such activity or city (code 1400)' }, { params: { ...activity, destinationUuid: '1' }, success: { status: 204, description: 'Removed: no body' } }),
    'GET /activities/{activityUuid}/metadata/languages': act('Lists the languages that can be chosen for a timeslot of an activity.'),
    'GET /activities/{activityUuid}/languages': act('Lists the guide or audio languages of an activity with their names.'),
    'GET /activities/{activityUuid}/pickups': act('Lists the pickup points of an activity; when there are some, dates and cart items need one.', {}, { params: { activityUuid: PICKUP_ACTIVITY } }),
    'GET /activities/{activityUuid}/refund-policies': act('Lists the refund tiers of an activity: the share refunded when cancelling at least a period before the start.', {
      404: 'No such activity, or no refund policy version for it (code 1400)',
    }),
    'GET /activities/{activityUuid}/extra-customer-data/schema': act('Previews the extra customer data a cart with this activity will ask for.'),
    'GET /activities/{activityUuid}/participants-info/schema': act('Previews the per-participant questions a cart with this activity will ask.'),
    'GET /activities/{activityUuid}/contents/{locale}': act('Returns the content of an activity in one language.', { 404: 'No such activity, or no content in that language (code 1400)' }, { params: { ...activity, locale: 'en-US' } }),
    'GET /activities/{activityUuid}/comments': act('Lists the comments on an activity (older form of reviews).'),
    'GET /activities/{activityUuid}/reviews': act('Lists the reviews of an activity.'),
    'GET /activities/{activityUuid}/bundles': act('Lists the activities sold together with this one.', { 404: 'No such activity, or it has no bundles (code 1400)' }, { params: { activityUuid: '5a002d99-781b-479b-9a9d-9efadfd34ec2' } }),
    'GET /activities/{activityUuid}/related-activities': act('Lists activities in the same city and categories.'),
    'GET /activities/{activityUuid}/safety-information': act('Returns the safety measures of an activity.'),
    'GET /catalog/updates/{day}': { description: 'Lists the activities whose catalog entry changed on a day.', params: { day } },
    'GET /lists': { description: 'Lists the editorial lists of activities.' },
    'GET /lists/{listId}': { description: 'Returns one editorial list with its activities.', errors: { 404: NOT_FOUND }, params: { listId: 1 } },
    'GET /list-types': { description: 'Lists the types editorial lists can have.' },
    'GET /cities/{cityId}/lists': { description: 'Lists the editorial lists of one city.', errors: { 404: NOT_FOUND }, params: city },
    'GET /activities-related': { description: 'Finds cities, lists and venues matching a text.', query: { text: 'Venice' } },
    'GET /autocomplete': { description: 'Suggests activities, places, hotels and pickups for a search box.', query: { text: 'Venice' } },
    'GET /events': { description: 'Returns activities by numeric ids; removed from the API, use GET /activities.' },
    'GET /events/{eventId}/comments': { description: 'Lists the comments of an activity by numeric id; removed from the API.', errors: { 404: NOT_FOUND }, params: { eventId: 100011 } },
    'GET /verticals': { description: 'Lists the verticals; deprecated, use the categories.' },
    'GET /verticals/{verticalId}': { description: 'Returns one vertical in an array of one; deprecated.', errors: { 404: NOT_FOUND }, params: { verticalId: 1 } },
    'GET /activities/{activityUuid}/merchant-tags': act("Lists the partner's own tags for an activity; needs a bearer token.", { 401: NO_TOKEN }),
    'GET /pickups': { description: 'Lists the pickup points of every activity.' },
    'GET /pickups/{activityPickupUuid}': { description: 'Returns one pickup point in an array of one.', errors: { 404: NOT_FOUND }, params: { activityPickupUuid: PICKUP } },
    // carts
    'POST /carts': {
      description: 'Creates an empty cart; keep its uuid for the next calls (the body may stay empty).',
      body: {},
    },
    'GET /carts/{cartUuid}': { description: 'Returns a cart with its items, customer and totals.', errors: { 404: 'No such cart (code 1400)' }, params: cart },
    'PUT /carts/{cartUuid}': { description: 'Updates a cart (legacy form of the item and customer calls).', errors: { 404: 'No such cart (code 1400)', 423: CART_LOCKED }, params: cart },
    'PATCH /carts/{cartUuid}': { description: 'Updates part of a cart (legacy form of the item and customer calls).', errors: { 404: 'No such cart (code 1400)', 423: CART_LOCKED }, params: cart },
    'DELETE /carts/{cartUuid}': { description: 'Deletes a cart that no order was made from.', errors: { 404: 'No such cart (code 1400)', 423: CART_LOCKED }, params: cart },
    'POST /carts/{cartUuid}/items': {
      description: 'Adds products (product_id from GET /activities/{activityUuid}/dates/{day}) to a cart; answers the first item added.',
      errors: {
        400: 'Product unknown or no longer bookable, quantity out of range, tickets left, pickup or language missing (code 0)',
        404: 'No such cart or activity (code 1400)',
        422: 'Day temporarily or permanently unavailable (code 2201)',
        423: CART_LOCKED,
      },
      params: cart,
      body: [{ type: 'musement', product_identifier: exampleProduct(day), quantity: 2 }],
    },
    'DELETE /carts/{cartUuid}/items/{cartItemUuid}': { description: 'Removes an item from a cart.', success: { status: 204, description: 'Removed: no body' }, errors: { 404: 'No such cart or item (code 1400)', 423: CART_LOCKED }, params: item },
    'GET /carts/{cartUuid}/order-info': { description: 'Returns the order made from a cart and whether it is paid.', errors: { 404: 'No such cart, or no order made from it (code 1400)' }, params: cart },
    'GET /carts/{cartUuid}/form': { description: 'Returns the legacy checkout form: customer and participant questions as flat field lists.', errors: { 404: 'No such cart (code 1400)' }, params: cart },
    // customer info
    'GET /carts/{cartUuid}/customer/schema': { description: 'Returns the JSON Schema of the lead booker and extra customer data the cart needs.', errors: { 404: 'No such cart (code 1400)' }, params: cart },
    'PUT /carts/{cartUuid}/customer': {
      description: 'Sets the lead booker of a cart (and any extra customer data its activities ask for).',
      errors: { 400: 'A customer field missing or breaking the customer schema (code 0)', 404: 'No such cart (code 1400)', 423: CART_LOCKED },
      params: cart,
      body: {
        firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com',
        musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO',
      },
    },
    'GET /carts/{cartUuid}/items/{cartItemUuid}/participants/schema': {
      description: 'Returns the JSON Schema of the participants of a cart item.',
      errors: { 404: 'No such cart or item, or the item needs no participant info (code 1400)' },
      params: item,
    },
    'GET /carts/{cartUuid}/items/{cartItemUuid}/participants': { description: 'Returns the participants set on a cart item.', errors: { 404: 'No such cart or item (code 1400)' }, params: item },
    'PUT /carts/{cartUuid}/items/{cartItemUuid}/participants': {
      description: 'Sets the participants of a cart item, one per ticket.',
      errors: { 404: 'No such cart or item, or the item needs no participant info (code 1400)', 423: CART_LOCKED },
      params: item,
    },
    // orders
    'POST /orders': {
      description: 'Makes an order from a cart that has items and a customer; keep its uuid for the payment.',
      errors: { 400: 'Cart empty, customer missing or incomplete, or a bad field (code 0)', 404: 'No such cart (code 1400)', 423: CART_LOCKED },
      body: { cart_uuid: CART_PLACEHOLDER, email_notification: 'NONE' },
    },
    'GET /orders/{orderUuid}': { description: 'Returns an order with its items, their statuses and vouchers.', errors: { 404: 'No such order (code 1400)' }, params: order },
    // payments
    'POST /payments/no/payment': {
      description: 'Confirms an order without a card payment (merchant of record); needs a bearer token with the no-payment scope.',
      errors: {
        401: NO_TOKEN,
        404: 'No such order (code 1400)',
        422: 'Order total above zero and the client lacks the no-payment scope (code 0)',
        423: 'Order already paid (code 0)',
      },
      body: { uuid: ORDER_PLACEHOLDER },
    },
    // cancellations
    'DELETE /orders/{orderUuid}/items/{orderItemUuid}': {
      description: 'Cancels one order item and refunds it by its refund tiers; needs the order-item-cancellation scope.',
      success: { status: 204, description: 'Cancelled: no body' },
      errors: {
        401: NO_TOKEN,
        403: 'Token lacks the order-item-cancellation scope or did not create the order (code 0)',
        404: 'No such order or item (code 1400)',
        409: 'Item status does not allow a cancellation (code 0)',
      },
      params: orderItem,
      body: { cancellation_reason: 'CANCELLED-BY-CUSTOMER' },
    },
    'GET /orders/{orderUuid}/items/{orderItemUuid}/refund-policies': {
      description: 'Lists the refund tiers of an order item with the time each stops applying.',
      errors: { 404: 'No such order or item, or no refund policy (code 1400)' },
      params: orderItem,
    },
    'GET /orders/{orderUuid}/refunds': { description: 'Lists the refunds paid on an order.', errors: { 404: 'No such order (code 1400)' }, params: order },
    // webhooks
    'POST /orders/{orderUuid}/items/{orderItemUuid}/notifications': {
      description: 'Sends the Update order item webhook again with the current status.',
      success: { status: 204, description: 'Webhook queued: no body' },
      errors: { 404: 'No such order or item (code 1400)' },
      params: orderItem,
    },
    // vouchers
    'GET /orders/{orderUuid}/activities/{activityUuid}/voucher': {
      description: 'Returns a PDF with the vouchers of one activity of an order.',
      errors: { 404: 'No such order or activity in it (code 1400)', 409: 'Voucher not ready: the item is not confirmed (code 0)' },
      params: { ...order, activityUuid: EXAMPLE_ACTIVITY },
    },
    'GET /orders/{orderUuid}/items/{orderItemUuid}/voucher/booking': {
      description: 'Returns the voucher data of an order item: barcodes, order, activity and product.',
      errors: { 404: 'No such order or item (code 1400)', 409: 'Voucher not ready: the item is not confirmed (code 0)' },
      params: orderItem,
    },
    'GET /orders/{orderUuid}/items/{orderItemUuid}/vouchers-external': {
      description: "Lists the provider's own vouchers of an order item (always none in the mock).",
      errors: { 404: 'No such order or item (code 1400)' },
      params: orderItem,
    },
  };
}
