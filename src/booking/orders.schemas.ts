import { Type } from 'typebox';
import { PriceSchema } from '../catalog/taxonomy.schemas.js';
import { CustomerSchema, ItemProductSchema, Nullable, ParticipantSchema, Uuid } from './carts.schemas.js';
import { ORDER_ITEM_STATUSES } from '../lifecycle/order-item-status.js';

/**
 * Our schemas of the order answers (orders, payment, cancellations, refunds, vouchers), from the
 * vendor's field names and types where it documents them and from what orders.routes.ts,
 * cancellations.routes.ts and vouchers.routes.ts build otherwise. Like carts.schemas.ts, they
 * document the answers; the routes send their objects as built (src/http/as-built.ts).
 */

export const CANCELLATION_REASONS = [
  'API-ISSUE', 'TECHNICAL-ISSUE', 'MISSING-PASSENGER-INFO', 'VENUE-CLOSED', 'REJECTED-SCHEDULE-CHANGE',
  'REJECTED-ORDER', 'MISSING-MEETING-POINT-DETAILS', 'GRACE-PERIOD', 'CANCELLED-BY-CUSTOMER',
] as const;

const Timestamp = (description: string) => Type.String({ description: `ISO 8601 date-time: ${description}` });

export const OrderItemSchema = Type.Object({
  uuid: Uuid(),
  code: Type.String({ description: 'the order identifier and the item number, e.g. MUS4000001-1' }),
  cart_item_uuid: Uuid(),
  transaction_code: Type.Null({ description: 'not modelled by the mock' }),
  product: ItemProductSchema,
  quantity: Type.Integer({ minimum: 1 }),
  status: Type.Enum(ORDER_ITEM_STATUSES, { description: 'the order-item lifecycle (INTERFACE.md section 3)' }),
  vouchers: Type.Array(Type.Object({ url: Type.String({ description: 'the voucher PDF, opened without headers' }) }), { description: 'one voucher once the item is OK, else none' }),
  retail_price_in_order_currency: PriceSchema,
  total_retail_price_in_order_currency: PriceSchema,
  original_retail_price_in_supplier_currency: PriceSchema,
  total_original_retail_price_in_supplier_currency: PriceSchema,
  b2b_price: Type.Null({ description: 'not modelled by the mock' }),
  is_gift_redeem: Type.Boolean(),
  extra_customer_data: Type.Array(Type.Object({ name: Type.String(), value: Type.String() })),
  participants_info: Type.Array(ParticipantSchema),
  cancellation_reason: Nullable(Type.Enum(CANCELLATION_REASONS)),
  cancellation_additional_info: Nullable(Type.String()),
  error_status: Type.Boolean({ description: 'true when the status is KO' }),
  version: Type.Integer({ minimum: 1, description: 'grows with every status change (the webhook\'s version)' }),
  created_at: Timestamp('server clock'),
  updated_at: Timestamp('server clock'),
});

export const OrderSchema = Type.Object({
  identifier: Type.String({ description: 'e.g. MUS4000001' }),
  uuid: Uuid(),
  id: Type.Integer({ description: 'numeric id (the webhook\'s order_id)' }),
  date: Timestamp('when the order was made'),
  status: Type.Enum(['PENDING', 'OK'], { description: 'OK once paid' }),
  customer: CustomerSchema,
  items: Type.Array(OrderItemSchema),
  total_price: PriceSchema,
  discount_amount: PriceSchema,
  total_retail_price_in_order_currency: PriceSchema,
  market: Type.String(),
  // Left out when the order was made without them (the vendor's schema has no null there).
  source: Type.Optional(Type.String()),
  extra_data: Type.Optional(Type.String({ description: 'serialized JSON object' })),
  affiliate: Type.Optional(Type.Object({ code: Type.String(), name: Type.String(), logo_url: Type.String() })),
  affiliate_channel: Type.Optional(Type.String()),
  email_notification: Type.Enum(['ALL', 'NONE', 'TO-CUSTOMER']),
  version: Type.Integer({ minimum: 1 }),
  created_at: Timestamp('server clock'),
  updated_at: Timestamp('server clock'),
});

export const RefundSchema = Type.Object({
  uuid: Uuid(),
  order_item_uuid: Uuid(),
  status: Type.Literal('PAID'),
  amount: PriceSchema,
  cancellation_reason: Type.Enum(CANCELLATION_REASONS),
  created_at: Timestamp('when the item was cancelled'),
});

export const RefundTierSchema = Type.Object({
  uuid: Uuid(),
  period: Type.String({ description: 'ISO 8601 duration before the booked start' }),
  type: Type.Enum(['PERCENTAGE', 'ABSOLUTE']),
  value: Type.Number(),
  currency_code: Type.Optional(Type.String({ description: 'ABSOLUTE tiers: the supplier currency of value' })),
  applicable_until: Type.String({ description: 'last moment the tier applies, "YYYY-MM-DD HH:MM" (UTC)' }),
  remaining_time: Type.String({ description: 'ISO 8601 duration until then on the server clock (P0D once past)' }),
});

export const BookingVoucherSchema = Type.Object({
  barcodes: Type.Array(
    Type.Object({
      code: Type.String(),
      type: Type.Enum(['BARCODE25', 'BARCODE39', 'BARCODE128', 'EAN13', 'UPCA', 'QRCODE', 'TEXT', 'PRERENDERED']),
      image: Type.String({ description: 'data URI of the code\'s image (PNG)' }),
      custom_text: Type.String(),
      image_url: Type.String(),
      used: Type.Boolean(),
    }),
  ),
  order: Type.Object({ uuid: Uuid(), identifier: Type.String() }),
  activity: Type.Object({ uuid: Uuid(), title: Type.String() }),
  product: Type.Object({ id: Type.String(), date: Type.String({ description: '"YYYY-MM-DD HH:MM"' }), tickets: Type.Array(Type.String()) }),
  emergency_phone_number: Type.String(),
  supplier: Type.Object({ company_name: Type.String() }),
});

/** A PDF answer, as the document shows a binary body. */
export const pdfResponse = (description: string) => ({
  description,
  content: { 'application/pdf': { schema: Type.String({ format: 'binary' }) } },
});
