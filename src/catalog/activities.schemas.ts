import { Type, type Static } from 'typebox';
import { BOOKING_TYPES, ACTIVITY_STATUSES } from '../seed/types.js';
import {
  CategorySchema,
  CitySchema,
  FlavourSchema,
  MetadataItemSchema,
  PriceSchema,
  VenueSchema,
} from './taxonomy.schemas.js';
import { SORT_VALUES } from './sort.js';

const Str = (description?: string) => Type.String(description ? { description } : {});
const Bool = (description?: string) => Type.Boolean(description ? { description } : {});
const Duration = (description: string) => Type.String({ description: `ISO 8601 duration; ${description}` });
const Count = () => Type.Integer({ minimum: 0 });

/** The Activity resource, field by field from the spec's Activity table. (T) = translated. */
export const ActivitySchema = Type.Object(
  {
    uuid: Type.String({ format: 'uuid' }),
    title: Str('(T)'),
    slug: Str('URL-friendly slug of the title'),
    slug_id: Str('slug plus numeric id'),
    about: Str('(T) main description, no HTML'),
    about_html: Str('(T) main description, HTML'),
    about_markdown: Str('(T) main description, Markdown'),
    description: Str('same as meta_description'),
    meta_description: Str('(T)'),
    meta_title: Str('(T)'),
    highlights: Type.Array(Type.String()),
    included: Type.Array(Type.String()),
    not_included: Type.Array(Type.String()),
    info: Str('(T) HTML'),
    meeting_point: Str('(T)'),
    meeting_point_html: Str('(T)'),
    meeting_point_markdown: Str('(T)'),
    emergency_phone_number: Str('(T)'),
    operational_days: Str('(T) HTML'),
    where_text: Str('(T) HTML'),
    cover_image_url: Type.String({ format: 'uri' }),
    latitude: Type.Number(),
    longitude: Type.Number(),
    automatically_translated: Bool('any content machine translated'),
    translated: Bool('content is a translation for the requested language'),
    booking_type: Type.Enum(BOOKING_TYPES),
    daily: Bool('true when booking_type is CALENDAR-NO-TIMESLOTS'),
    open: Bool('true for the NO-CALENDAR booking types'),
    buy_multiplier: Type.Integer({ minimum: 1 }),
    cutoff_time: Duration('always unavailable period'),
    max_confirmation_time: Duration('maximum time the provider needs to confirm'),
    duration_range: Type.Optional(
      Type.Object({ min: Type.Optional(Duration('minimum')), max: Type.Optional(Duration('maximum')) }),
    ),
    validity: Duration('used when duration_range is absent; P0D means no well-defined length'),
    status: Type.Enum(ACTIVITY_STATUSES),
    needs_voucher: Bool('provider confirms each reservation manually'),
    order_box_elements: Type.Array(
      Type.Union([Type.Literal('tours-and-activities'), Type.Literal('tours-and-activities-with-pickup')]),
    ),
    has_extra_customer_data: Bool(),
    has_passenger_info: Bool(),
    has_multiple_options: Bool(),
    has_price_info_on_date: Bool(),
    numbered_seats: Bool(),
    voucher_access_usage: Type.Union([Type.Literal('MOBILE'), Type.Literal('PRINTED'), Type.Literal('MIXED')]),
    voucher_always_include_ours: Bool(),
    free_cancellation: Bool(),
    giftcard: Bool(),
    giftable: Bool(),
    exclusive: Bool(),
    best_price: Bool(),
    must_see: Bool(),
    top_seller: Bool(),
    special_offer: Bool(),
    last_chance: Bool(),
    likely_to_sell_out: Bool(),
    sold_out: Bool(),
    temporary: Bool(),
    ticket: Bool(),
    ticket_not_included: Bool(),
    no_index: Bool(),
    is_available_today: Bool(),
    is_available_tomorrow: Bool(),
    discount: Count(),
    green_fee_days: Count(),
    included_hotel_night_number: Count(),
    relevance: Type.Integer(),
    relevance_venue: Type.Integer(),
    partner_internal_code: Str("provider's own identifier"),
    retail_price: PriceSchema,
    original_retail_price: PriceSchema,
    original_retail_price_without_service_fee: PriceSchema,
    retail_price_without_service_fee: PriceSchema,
    service_fee: PriceSchema,
    child_retail_price: Type.Optional(PriceSchema),
    merchant_price: Type.Optional(PriceSchema),
    supplier_currency: Str('currency the prices were loaded in'),
    reviews_aggregated_info: Type.Object({ '1': Count(), '2': Count(), '3': Count(), '4': Count(), '5': Count() }),
    reviews_avg: Type.Number({ minimum: 0, maximum: 5 }),
    reviews_number: Count(),
    categories: Type.Array(CategorySchema),
    city: CitySchema,
    venues: Type.Array(VenueSchema),
    features: Type.Array(MetadataItemSchema),
    food: Type.Array(MetadataItemSchema),
    group_size: Type.Array(MetadataItemSchema),
    services: Type.Array(MetadataItemSchema),
    flavours: Type.Array(FlavourSchema),
    languages: Type.Array(Type.Object({ code: Type.String(), name: Type.String() })),
    supplier: Type.Object({ company_name: Type.String(), uuid: Type.String() }),
    // Deprecated fields, still sent as the real API does.
    duration: Type.Optional(Duration('deprecated: use duration_range')),
    url: Str('deprecated'),
    saves: Type.Integer({ description: 'deprecated' }),
    seller_gateway: Type.Object({ code: Type.String(), name: Type.String() }, { description: 'deprecated' }),
    verticals: Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'deprecated: use categories' }),
  },
  { additionalProperties: false },
);

export type ActivityT = Static<typeof ActivitySchema>;

export const ActivitySearchResultSchema = Type.Object({
  meta: Type.Object({ count: Type.Integer({ minimum: 0, description: 'Total matching activities' }) }),
  data: Type.Array(ActivitySchema),
  facets: Type.Optional(
    Type.Array(
      Type.Object({
        facet_type: Type.String(),
        key: Type.String(),
        query_param: Type.String(),
        label: Type.String(),
        values: Type.Array(Type.Object({ key: Type.String(), label: Type.String(), value: Type.Number(), query_value: Type.String() })),
      }),
      { description: 'counts per value of the facets named in include_facets' },
    ),
  ),
});

/**
 * The sort_by parameter of every activity listing: GET /activities and the city, category and venue
 * activity lists accept the same values (checked by validateSort, which names an unknown one).
 */
export const SortByQuery = Type.Optional(
  Type.Array(Type.String(), { description: `comma-separated; each one of ${SORT_VALUES.join(', ')} ('-' reverses; distance needs coordinates)` }),
);
