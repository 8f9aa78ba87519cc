import { Type } from 'typebox';
import { ACTIVITY_STATUSES, BOOKING_TYPES, CONTENT_LANGUAGES } from './types.js';

/** TypeBox schemas of the catalog records, to check fixture files field by field at start-up. */
const Lang = Type.Enum(CONTENT_LANGUAGES);
const TextS = Type.Object({ en: Type.String(), it: Type.Optional(Type.String()), de: Type.Optional(Type.String()), fr: Type.Optional(Type.String()), es: Type.Optional(Type.String()) }, { additionalProperties: false });
const TextListS = Type.Object({ en: Type.Array(Type.String()), it: Type.Optional(Type.Array(Type.String())), de: Type.Optional(Type.Array(Type.String())), fr: Type.Optional(Type.Array(Type.String())), es: Type.Optional(Type.Array(Type.String())) }, { additionalProperties: false });
const Id = Type.Integer({ minimum: 1 });
const Uuid = Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' });
const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });
const Duration = Type.String({ pattern: '^-?P(?!$)(\\d+Y)?(\\d+M)?(\\d+W)?(\\d+D)?(T(?=\\d)(\\d+H)?(\\d+M)?(\\d+(\\.\\d+)?S)?)?$' });
const Money = Type.Number({ minimum: 0 });
const strict = { additionalProperties: false };

export const CountryS = Type.Object({ id: Id, iso_code: Type.String({ minLength: 2, maxLength: 2 }), iso3char: Type.String({ minLength: 3, maxLength: 3 }), name: TextS, country_prefix: Type.String(), currency_code: Type.String({ minLength: 3, maxLength: 3 }) }, strict);
export const CityS = Type.Object({ id: Id, code: Type.String(), slug: Type.String(), name: TextS, country_id: Id, latitude: Type.Number({ minimum: -90, maximum: 90 }), longitude: Type.Number({ minimum: -180, maximum: 180 }), time_zone: Type.String(), top: Type.Boolean(), weight: Type.Integer(), content: TextS, headline: TextS, meta_title: TextS, meta_description: TextS, cover_image_url: Type.String(), url: Type.String() }, strict);
export const VenueS = Type.Object({ id: Id, slug: Type.String(), name: TextS, city_id: Id, address: Type.String(), latitude: Type.Number(), longitude: Type.Number(), description: TextS, headline: TextS, meta_title: TextS, meta_description: TextS, cover_image_url: Type.String(), url: Type.String(), relevance: Type.Integer() }, strict);
export const CategoryS = Type.Object({ id: Id, code: Type.String(), name: TextS, level: Type.Integer({ minimum: 0 }), parent_id: Type.Union([Id, Type.Null()]), cover_image_url: Type.String(), event_image_url: Type.String(), url: Type.String() }, strict);
export const FlavourS = Type.Object({ id: Id, slug: Type.String(), name: TextS, active: Type.Boolean() }, strict);
export const MetadataS = Type.Object({ code: Type.String({ minLength: 1 }), name: TextS }, strict);

const HolderS = Type.Object({ code: Type.String(), name: TextS, retail_price: Money, original_retail_price: Money, service_fee: Money, merchant_price: Money, min_buy: Type.Integer({ minimum: 1 }), max_buy: Type.Integer({ minimum: 1 }), age_range: Type.String(), default: Type.Boolean() }, strict);
const OptionS = Type.Object({ feature_code: Type.String(), name: TextS, description: TextS, type: Type.Enum(['TIME-BASED', 'DAY-BASED']), default: Type.Boolean(), holders: Type.Array(HolderS, { minItems: 1 }) }, strict);
const FieldS = Type.Object({ name: Type.String({ minLength: 1 }), type: Type.Enum(['string', 'number', 'integer', 'boolean']), title: TextS, required: Type.Boolean(), format: Type.Optional(Type.Enum(['email', 'date'])), enum: Type.Optional(Type.Array(Type.String())) }, strict);
const BookingS = Type.Object({
  options: Type.Array(OptionS, { minItems: 1 }),
  timeslots: Type.Array(Type.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$' })),
  languages: Type.Array(Type.String({ minLength: 2, maxLength: 2 })),
  weekdays: Type.Array(Type.Integer({ minimum: 0, maximum: 6 })),
  horizon_days: Type.Integer({ minimum: 0, maximum: 1000 }),
  availability: Type.Integer({ minimum: 0 }),
  unavailable_dates: Type.Array(Day),
  sold_out_dates: Type.Array(Day),
  valid_until: Type.Optional(Day),
  pickups: Type.Array(Type.Object({ uuid: Uuid, type: Type.Enum(['HOTEL', 'PICKUP']), name: Type.String(), latitude: Type.Number(), longitude: Type.Number() }, strict)),
  extra_customer_data: Type.Array(FieldS),
  participant_fields: Type.Array(FieldS),
  refund_policies: Type.Array(Type.Object({ uuid: Uuid, period: Duration, type: Type.Enum(['PERCENTAGE', 'ABSOLUTE']), value: Type.Number({ minimum: 0 }) }, strict)),
}, strict);

export const ActivityS = Type.Object({
  uuid: Uuid, id: Id, status: Type.Enum(ACTIVITY_STATUSES), booking_type: Type.Enum(BOOKING_TYPES),
  content_languages: Type.Array(Lang, { minItems: 1 }), machine_translated: Type.Array(Lang),
  title: TextS, about: TextS, meta_title: TextS, meta_description: TextS, highlights: TextListS, included: TextListS, not_included: TextListS,
  info: TextS, meeting_point: TextS, emergency_phone_number: Type.String(), operational_days: TextS, where_text: TextS,
  cover_image_url: Type.String(), latitude: Type.Number({ minimum: -90, maximum: 90 }), longitude: Type.Number({ minimum: -180, maximum: 180 }),
  buy_multiplier: Type.Integer({ minimum: 1 }), cutoff_time: Duration, max_confirmation_time: Duration,
  duration_range: Type.Union([Type.Object({ min: Type.Optional(Duration), max: Type.Optional(Duration) }, strict), Type.Null()]),
  validity: Duration, needs_voucher: Type.Boolean(), has_price_info_on_date: Type.Boolean(), numbered_seats: Type.Boolean(),
  voucher_access_usage: Type.Enum(['MOBILE', 'PRINTED', 'MIXED']), voucher_always_include_ours: Type.Boolean(), free_cancellation: Type.Boolean(),
  giftcard: Type.Boolean(), giftable: Type.Boolean(), flags: Type.Record(Type.String(), Type.Boolean()),
  discount: Type.Integer({ minimum: 0, maximum: 100 }), green_fee_days: Type.Integer({ minimum: 0 }), included_hotel_night_number: Type.Integer({ minimum: 0 }),
  relevance: Type.Integer(), relevance_venue: Type.Integer(), partner_internal_code: Type.String(), supplier_currency: Type.String({ minLength: 3, maxLength: 3 }),
  retail_price: Money, original_retail_price: Money, service_fee: Money, merchant_price: Money, child_retail_price: Type.Union([Money, Type.Null()]),
  reviews_aggregated_info: Type.Object({ '1': Type.Integer({ minimum: 0 }), '2': Type.Integer({ minimum: 0 }), '3': Type.Integer({ minimum: 0 }), '4': Type.Integer({ minimum: 0 }), '5': Type.Integer({ minimum: 0 }) }, strict),
  reviews_avg: Type.Number({ minimum: 0, maximum: 5 }), reviews_number: Type.Integer({ minimum: 0 }),
  category_ids: Type.Array(Id), city_id: Id, destination_city_ids: Type.Array(Id), venue_ids: Type.Array(Id),
  feature_codes: Type.Array(Type.String()), service_codes: Type.Array(Type.String()), food_codes: Type.Array(Type.String()), group_size_codes: Type.Array(Type.String()),
  flavour_ids: Type.Array(Id), supplier: Type.Object({ uuid: Uuid, company_name: Type.String() }, strict),
  media: Type.Array(Type.Object({ id: Id, type: Type.Enum(['image', 'video']), title: TextS, url: Type.String(), is_cover: Type.Boolean() }, strict)),
  bundle_uuids: Type.Array(Uuid), booking: BookingS,
}, strict);

/** A fixture file: any of these lists. */
export const FixtureFileS = Type.Object({
  $comment: Type.Optional(Type.String()),
  countries: Type.Optional(Type.Array(CountryS)),
  cities: Type.Optional(Type.Array(CityS)),
  venues: Type.Optional(Type.Array(VenueS)),
  categories: Type.Optional(Type.Array(CategoryS)),
  flavours: Type.Optional(Type.Array(FlavourS)),
  features: Type.Optional(Type.Array(MetadataS)),
  services: Type.Optional(Type.Array(MetadataS)),
  food: Type.Optional(Type.Array(MetadataS)),
  group_sizes: Type.Optional(Type.Array(MetadataS)),
  languages: Type.Optional(Type.Array(MetadataS)),
  /** Activities are checked after defaults are applied (ActivityS), so files may leave fields out. */
  activities: Type.Optional(Type.Array(Type.Object({ uuid: Uuid }, { additionalProperties: true }))),
}, strict);
