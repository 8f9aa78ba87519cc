import { Type, type TSchema } from 'typebox';
import { ActivitySchema } from './activities.schemas.js';
import { CategorySchema, CitySchema, MetadataItemSchema } from './taxonomy.schemas.js';

/**
 * Our schemas of the catalog answers the routes build by hand (reviews, lists, searches, pickups,
 * content), from the vendor's field names where it documents them and from what the routes build.
 * They document the answers; those routes send them as built (src/http/as-built.ts).
 */

/** A comment (GET .../comments, deprecated in favour of reviews). */
export const CommentSchema = Type.Object({
  uuid: Type.String(),
  status: Type.Literal('APPROVED'),
  author: Type.Object({ firstname: Type.String() }),
  locale: Type.String({ description: 'two-letter language code' }),
  pictures: Type.Array(Type.String()),
  title: Type.String(),
  body: Type.String({ description: 'empty for a rating without words' }),
  rating: Type.Integer({ minimum: 1, maximum: 5 }),
  sent_at: Type.String({ description: 'date-time, e.g. 2025-11-02T12:00:00+0000' }),
});

export const ReviewSchema = Type.Object({
  uuid: Type.String(),
  comment: Type.String(),
  customer_country: Type.String({ description: 'ISO 3166 alpha-2' }),
  date: Type.String({ description: 'YYYY-MM-DD' }),
  rating_value: Type.Integer({ minimum: 1, maximum: 5 }),
  traveler_type: Type.Enum(['ALONE', 'AS-A-COUPLE', 'WITH-FAMILY', 'WITH-FRIENDS']),
});

export const ActivityContentSchema = Type.Object({
  locale: Type.String(),
  title: Type.String(),
  description: Type.String(),
  meeting_point: Type.String(),
  where: Type.String(),
  operational_days: Type.String(),
  is_default: Type.Boolean(),
  meta_title: Type.String(),
  meta_description: Type.String(),
  emergency_phone_number: Type.String(),
  highlights: Type.String({ description: 'one per line' }),
  included: Type.String({ description: 'one per line' }),
  not_included: Type.String({ description: 'one per line' }),
  info: Type.String(),
  translated: Type.Boolean(),
  is_manually_translated_complete: Type.Boolean(),
});

export const BundleSchema = Type.Object({
  discount: Type.Number(),
  discount_type: Type.Enum(['PERCENTAGE', 'ABSOLUTE']),
  bundle_type: Type.String(),
  rule_id: Type.String(),
  activities: Type.Array(ActivitySchema),
});

export const SafetyInformationSchema = Type.Object({ safety_measures: Type.Array(MetadataItemSchema) });

/** A category with its sub-categories, `depth` levels down (the catalog's tree has two below the root). */
function treeNode(depth: number): TSchema {
  const children = depth === 0 ? Type.Array(Type.Object({}, { additionalProperties: true })) : Type.Array(treeNode(depth - 1));
  return Type.Object({ ...CategorySchema.properties, parent_id: Type.Union([Type.Integer(), Type.Null()]), children });
}
export const CategoryTreeSchema = treeNode(3);

export const ListTypeSchema = Type.Object({ id: Type.Integer(), name: Type.String() });

export const ListSchema = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  subtitle: Type.String(),
  description: Type.String(),
  temporary: Type.Boolean(),
  url: Type.String(),
  list_type: ListTypeSchema,
  items_count: Type.Object({ musement: Type.Integer(), thirdparty: Type.Integer(), generic: Type.Integer() }),
  city: CitySchema,
  category: CategorySchema,
  cover_image_url: Type.String(),
  verticals: Type.Array(Type.Unknown()),
});

export const ListWithItemsSchema = Type.Object({
  ...ListSchema.properties,
  items: Type.Array(Type.Object({ id: Type.Integer(), public_type: Type.Literal('event'), title: Type.String(), event: ActivitySchema })),
});

const Found = {
  id: Type.String(),
  title: Type.String(),
  cover_image: Type.String(),
  url: Type.String(),
  api_url: Type.String(),
};

export const RelatedResultSchema = Type.Object({
  type: Type.Enum(['cities', 'lists', 'venues']),
  matched: Type.Boolean({ description: 'whether one item has exactly the text as its name' }),
  items: Type.Array(Type.Object({ ...Found, events_count: Type.Integer() })),
});

export const AutocompleteResultSchema = Type.Object({
  type: Type.Enum(['activity', 'category', 'city', 'list', 'venue', 'country', 'hotel', 'pickup']),
  items: Type.Array(Type.Object({ ...Found, hint: Type.Union([Type.String(), Type.Null()], { description: 'hotels and pickups: their city' }) })),
});

export const PickupSchema = Type.Object({
  uuid: Type.String(),
  type: Type.Enum(['HOTEL', 'PICKUP']),
  name: Type.String(),
  latitude: Type.Number(),
  longitude: Type.Number(),
  tags: Type.Array(Type.Object({ id: Type.String(), type: Type.String() })),
});

export const CatalogUpdateSchema = Type.Object({ uuid: Type.String({ description: 'activity uuid' }) });
