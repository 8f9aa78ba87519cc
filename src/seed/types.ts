/**
 * The internal, immutable catalog model: what fixtures are written in and what generation produces.
 * Routes render these records into the API's shapes per request (language, currency, authentication);
 * nothing here is an API shape. Translated texts are stored per language; prices in the supplier's
 * currency and converted when rendered.
 */

/** Languages the catalog carries content in (Accept-Language falls back to en). */
export const CONTENT_LANGUAGES = ['en', 'it', 'de', 'fr', 'es'] as const;
export type Lang = (typeof CONTENT_LANGUAGES)[number];

/** A translated string: English always, other languages where a translation exists. */
export type Text = { en: string } & Partial<Record<Lang, string>>;
export type TextList = { en: string[] } & Partial<Record<Lang, string[]>>;

export const BOOKING_TYPES = [
  'CALENDAR-TIMESLOTS',
  'CALENDAR-NO-TIMESLOTS',
  'NO-CALENDAR-FIXED-END',
  'NO-CALENDAR-FIXED-VALIDITY',
] as const;
export type BookingType = (typeof BOOKING_TYPES)[number];

export const ACTIVITY_STATUSES = ['DRAFT', 'REVIEW', 'ONLINE', 'ARCHIVED', 'UNAVAILABLE'] as const;
export type ActivityStatus = (typeof ACTIVITY_STATUSES)[number];

export interface CountryRecord {
  id: number;
  iso_code: string;
  iso3char: string;
  name: Text;
  country_prefix: string;
  currency_code: string;
}

export interface CityRecord {
  id: number;
  code: string;
  slug: string;
  name: Text;
  country_id: number;
  latitude: number;
  longitude: number;
  time_zone: string;
  top: boolean;
  weight: number;
  content: Text;
  headline: Text;
  meta_title: Text;
  meta_description: Text;
  cover_image_url: string;
  url: string;
}

export interface VenueRecord {
  id: number;
  slug: string;
  name: Text;
  city_id: number;
  address: string;
  latitude: number;
  longitude: number;
  description: Text;
  headline: Text;
  meta_title: Text;
  meta_description: Text;
  cover_image_url: string;
  url: string;
  relevance: number;
}

export interface CategoryRecord {
  id: number;
  code: string;
  name: Text;
  /** Depth in the tree as the API reports it ("0" roots, "1" children, ...). */
  level: number;
  parent_id: number | null;
  cover_image_url: string;
  event_image_url: string;
  url: string;
}

export interface FlavourRecord {
  id: number;
  slug: string;
  name: Text;
  active: boolean;
}

/** Features, services, food, group sizes and languages share this {code, name} shape. */
export interface MetadataRecord {
  code: string;
  name: Text;
}

export interface SupplierRecord {
  uuid: string;
  company_name: string;
}

/** An amount in the activity's supplier currency. */
export type Money = number;

/** A ticket holder inside an option: what a product_id points at, with its price. */
export interface HolderRecord {
  /** e.g. adult, child, senior. */
  code: string;
  name: Text;
  /** Final customer price per unit, supplier currency, service fee included. */
  retail_price: Money;
  /** Price before discount (>= retail_price). */
  original_retail_price: Money;
  service_fee: Money;
  /** What the partner pays (shown only to authenticated requests). */
  merchant_price: Money;
  min_buy: number;
  max_buy: number;
  age_range: string;
  default: boolean;
}

/** A ticket option (schedule group / feature). */
export interface OptionRecord {
  feature_code: string;
  name: Text;
  description: Text;
  /** TIME-BASED options have timeslots; DAY-BASED ones have a single all-day slot. */
  type: 'TIME-BASED' | 'DAY-BASED';
  default: boolean;
  holders: HolderRecord[];
}

export interface PickupRecord {
  uuid: string;
  type: 'HOTEL' | 'PICKUP';
  name: string;
  latitude: number;
  longitude: number;
}

export interface RefundPolicyRecord {
  uuid: string;
  /** ISO 8601 duration before the booked time. */
  period: string;
  type: 'PERCENTAGE' | 'ABSOLUTE';
  value: number;
}

/** One field of an extra-customer-data or participant-info schema. */
export interface FormFieldRecord {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean';
  title: Text;
  required: boolean;
  format?: 'email' | 'date';
  enum?: string[];
}

export interface MediaRecord {
  id: number;
  type: 'image' | 'video';
  title: Text;
  url: string;
  is_cover: boolean;
}

/**
 * How an activity can be booked. Schedules for a day are derived from these rules (and the seed)
 * by the dates endpoints, so that any date can be answered without storing a calendar.
 */
export interface BookingRules {
  options: OptionRecord[];
  /** Start times "HH:MM" for TIME-BASED options; empty for the others. */
  timeslots: string[];
  /** Guide/audio languages offered (two-letter codes); a cart item must pick one when non-empty. */
  languages: string[];
  /** Days of week the activity runs, 0 = Sunday. */
  weekdays: number[];
  /** How many days ahead dates are offered. */
  horizon_days: number;
  /** Units available per slot and product before it is sold out. */
  availability: number;
  /** YYYY-MM-DD days that answer 422 code 2201 (temporarily unavailable). */
  unavailable_dates: string[];
  /** YYYY-MM-DD days listed but sold out. */
  sold_out_dates: string[];
  /** For NO-CALENDAR-FIXED-END: the last valid day. */
  valid_until?: string;
  pickups: PickupRecord[];
  extra_customer_data: FormFieldRecord[];
  participant_fields: FormFieldRecord[];
  refund_policies: RefundPolicyRecord[];
}

export interface ActivityRecord {
  uuid: string;
  /** Numeric id used in slug_id and urls. */
  id: number;
  status: ActivityStatus;
  booking_type: BookingType;
  /** Languages with real content; others fall back to en. */
  content_languages: Lang[];
  /** Of those, the ones machine translated. */
  machine_translated: Lang[];
  title: Text;
  about: Text;
  meta_title: Text;
  meta_description: Text;
  highlights: TextList;
  included: TextList;
  not_included: TextList;
  info: Text;
  meeting_point: Text;
  emergency_phone_number: string;
  operational_days: Text;
  where_text: Text;
  cover_image_url: string;
  latitude: number;
  longitude: number;
  buy_multiplier: number;
  cutoff_time: string;
  max_confirmation_time: string;
  duration_range: { min?: string; max?: string } | null;
  validity: string;
  needs_voucher: boolean;
  has_price_info_on_date: boolean;
  numbered_seats: boolean;
  voucher_access_usage: 'MOBILE' | 'PRINTED' | 'MIXED';
  voucher_always_include_ours: boolean;
  free_cancellation: boolean;
  giftcard: boolean;
  giftable: boolean;
  /** Catalog flags of the spec's Activity table (exclusive, best_price, must_see, ...). */
  flags: Record<string, boolean>;
  discount: number;
  green_fee_days: number;
  included_hotel_night_number: number;
  relevance: number;
  relevance_venue: number;
  partner_internal_code: string;
  supplier_currency: string;
  /** "From" price shown on the activity: the default holder's prices. */
  retail_price: Money;
  original_retail_price: Money;
  service_fee: Money;
  merchant_price: Money;
  child_retail_price: Money | null;
  reviews_aggregated_info: Record<'1' | '2' | '3' | '4' | '5', number>;
  reviews_avg: number;
  reviews_number: number;
  category_ids: number[];
  city_id: number;
  /** Extra destination cities (the default city is city_id). */
  destination_city_ids: number[];
  venue_ids: number[];
  feature_codes: string[];
  service_codes: string[];
  food_codes: string[];
  group_size_codes: string[];
  flavour_ids: number[];
  supplier: SupplierRecord;
  media: MediaRecord[];
  /** UUIDs of activities recommended with this one (bundles); empty means no bundles. */
  bundle_uuids: string[];
  booking: BookingRules;
}

/** Every immutable list the catalog serves, for one seed. */
export interface CatalogData {
  countries: CountryRecord[];
  cities: CityRecord[];
  venues: VenueRecord[];
  categories: CategoryRecord[];
  flavours: FlavourRecord[];
  features: MetadataRecord[];
  services: MetadataRecord[];
  food: MetadataRecord[];
  group_sizes: MetadataRecord[];
  languages: MetadataRecord[];
  activities: ActivityRecord[];
}
