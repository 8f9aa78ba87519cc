import { Type, type TSchema } from 'typebox';
import { PriceSchema } from '../catalog/taxonomy.schemas.js';

/**
 * Our schemas of the cart answers (carts, items, customer, participants, forms), from the vendor's
 * field names and types where it documents them and from what carts.ts and customer.routes.ts
 * build otherwise. They document the answers (/docs/json, generated clients); the routes send their
 * objects as built (asBuilt, src/http/as-built.ts), so a schema never changes a byte on the wire.
 */

/** A value that may be null: OpenAPI 3.0's `nullable` once @fastify/swagger writes the document. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Uuid = (description?: string) => Type.String(description ? { description } : {});

export const CartItemTypeSchema = Type.Enum(['musement', 'musement-realtime', 'musement-giftbox', 'musement-gift']);

export const PriceTagSchema = Type.Object({
  price_feature: Type.String({ description: 'option name, in the request language' }),
  price_feature_code: Type.String(),
  ticket_holder: Type.String({ description: 'ticket holder name, in the request language' }),
  ticket_holder_code: Type.String(),
  default: Type.Boolean(),
});

/** The product a cart or order item books: prices in the request (or order) currency. */
export const ItemProductSchema = Type.Object({
  id: Type.String({ description: 'the product_identifier' }),
  type: CartItemTypeSchema,
  title: Type.String(),
  date: Type.String({ description: 'booked day and time, "YYYY-MM-DD HH:MM" (the day alone for all-day options)' }),
  activity_uuid: Uuid(),
  api_url: Type.String(),
  cover_image_url: Type.String(),
  max_confirmation_time: Type.String({ description: 'ISO 8601 duration' }),
  price_tag: PriceTagSchema,
  min_buy: Type.Integer(),
  max_buy: Type.Integer(),
  original_retail_price: PriceSchema,
  retail_price: PriceSchema,
  service_fee: PriceSchema,
  discount_amount: PriceSchema,
  meeting_point: Type.String(),
});

export const CartItemSchema = Type.Object({
  uuid: Uuid(),
  type: CartItemTypeSchema,
  product_identifier: Type.String(),
  quantity: Type.Integer({ minimum: 1 }),
  status: Type.Enum(['PREBOOK_OK', 'PREBOOK_KO']),
  language: Type.Optional(Type.Object({ code: Type.String(), name: Type.String() }, { description: 'absent when the item has no language' })),
  pickup: Nullable(Uuid('pickup uuid')),
  is_gift_redeem: Type.Boolean(),
  total_price: PriceSchema,
  total_price_without_service_fee: PriceSchema,
  product: ItemProductSchema,
});

const YesNo = Type.Enum(['NO', 'YES']);

/** The lead booker as set by PUT /carts/{cartUuid}/customer: the schema's fields, and any others sent. */
export const CustomerSchema = Type.Object(
  {
    firstname: Type.String(),
    lastname: Type.String(),
    email: Type.String({ format: 'email' }),
    musement_newsletter: YesNo,
    allow_profiling: YesNo,
    thirdparty_newsletter: YesNo,
    events_related_newsletter: YesNo,
    city: Type.Optional(Type.String()),
    address: Type.Optional(Type.String()),
    zipcode: Type.Optional(Type.String()),
    tax_id: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

/** The customer of a cart, with its extra customer data. */
export const CartCustomerSchema = Type.Object(
  {
    ...CustomerSchema.properties,
    extra_customer_data: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), { description: 'answers keyed by activity uuid, then by field name' }),
  },
  { additionalProperties: true },
);

export const CartSchema = Type.Object({
  uuid: Uuid(),
  items: Type.Array(CartItemSchema),
  // Absent until PUT /carts/{cartUuid}/customer.
  customer: Type.Optional(CartCustomerSchema),
  preferred_payment_gateway: Nullable(Type.Enum(['STRIPE', 'ADYEN'])),
  full_price: PriceSchema,
  full_price_without_service_fee: PriceSchema,
  retail_price: PriceSchema,
  retail_price_without_service_fee: PriceSchema,
  service_fee: PriceSchema,
  discount: PriceSchema,
  total_discount: PriceSchema,
});

export const OrderInfoSchema = Type.Object({
  order_uuid: Uuid(),
  payment: Type.Object({ paid: Type.Boolean(), status: Type.Enum(['created', 'paid']) }),
});

/** A participant as shown: the activity's fields; dates as date-times (1815-12-10T00:00:00+00:00). */
export const ParticipantSchema = Type.Object(
  {
    salutation: Type.Optional(Type.String()),
    firstname: Type.Optional(Type.String()),
    lastname: Type.Optional(Type.String()),
    date_of_birth: Type.Optional(Type.String({ description: 'ISO 8601 date-time' })),
    passport: Type.Optional(Type.String()),
    passport_expiry_date: Type.Optional(Type.String({ description: 'ISO 8601 date-time' })),
    email: Type.Optional(Type.String()),
    nationality: Type.Optional(Type.String()),
    phone_number: Type.Optional(Type.String()),
  },
  { additionalProperties: true, description: 'the fields of the activity\'s participant schema' },
);

/** A JSON Schema the API hands out for a form (customer or participants). */
export const FormJsonSchema = Type.Object(
  { title: Type.String(), type: Type.Literal('object'), properties: Type.Record(Type.String(), Type.Unknown()), required: Type.Array(Type.String()) },
  { additionalProperties: true, description: 'a JSON Schema (draft 4 style, with propertyOrder)' },
);

const FormField = Type.Object({
  name: Type.String(),
  value: Type.String({ description: 'what the cart holds, "" when nothing' }),
  type: Type.Enum(['text', 'date', 'number']),
  required: Type.Boolean(),
  label: Type.String({ description: 'in the request language' }),
});

export const CheckoutFormSchema = Type.Object({
  customer: Type.Array(FormField),
  tickets: Type.Array(Type.Object({ product: Type.Object({ id: Type.String() }), passengers_info: Type.Array(FormField) })),
  extra_customer_data: Type.Array(Type.Object({ event: Type.Object({ id: Uuid('activity uuid') }), fields: Type.Array(FormField) })),
});
