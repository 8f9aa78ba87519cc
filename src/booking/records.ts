import type { OrderItemStatus } from '../lifecycle/order-item-status.js';

/**
 * Booking state as the store keeps it (per application). Prices are snapshots in the supplier's
 * currency, converted to the request's currency whenever they are shown.
 */
export interface CartItemRecord {
  uuid: string;
  type: string;
  product_identifier: string;
  activity_uuid: string;
  feature_code: string;
  holder_code: string;
  day: string;
  /** "HH:MM", or "" for a day-based option. */
  time: string;
  quantity: number;
  language: string | null;
  pickup: string | null;
  participants: Record<string, unknown>[] | null;
  created_at: string;
}

export interface CustomerData {
  firstname: string;
  lastname: string;
  email: string;
  [field: string]: unknown;
}

export interface Cart {
  uuid: string;
  created_at: string;
  updated_at: string;
  items: CartItemRecord[];
  customer: CustomerData | null;
  /** Extra customer data per activity uuid. */
  extra_customer_data: Record<string, Record<string, unknown>>;
  order_uuid: string | null;
}

export interface UnitPrices {
  retail_price: number;
  original_retail_price: number;
  service_fee: number;
  merchant_price: number;
}

export interface OrderItem extends Omit<CartItemRecord, 'created_at' | 'participants'> {
  code: string;
  cart_item_uuid: string;
  supplier_currency: string;
  unit: UnitPrices;
  status: OrderItemStatus;
  version: number;
  created_at: string;
  updated_at: string;
  extra_customer_data: { name: string; value: string }[];
  participants_info: Record<string, unknown>[];
  cancellation_reason: string | null;
  cancellation_additional_info: string | null;
}

export interface Order {
  uuid: string;
  /** Numeric id: the webhook's order_id. */
  id: number;
  identifier: string;
  cart_uuid: string;
  created_at: string;
  updated_at: string;
  version: number;
  paid: boolean;
  /** The request currency when the order was placed: order prices are shown in it. */
  currency: string;
  customer: CustomerData;
  items: OrderItem[];
  market: string;
  source: string | null;
  extra_data: string | null;
  affiliate: string | null;
  affiliate_channel: string | null;
  email_notification: 'ALL' | 'NONE' | 'TO-CUSTOMER';
  refunds?: Refund[];
}

/**
 * A refund paid when an item was cancelled, in the currency the order was placed in. Refunds
 * written by older versions are in the item's supplier currency: `currency` says which, and they
 * are converted to the order currency when shown.
 */
export interface Refund {
  uuid: string;
  order_item_uuid: string;
  amount: number;
  currency: string;
  reason: string;
  created_at: string;
}
