import { Type, type Static } from 'typebox';

/** Our schemas for the catalog's sub-objects, from the spec's Sub-objects table. */
export const PriceSchema = Type.Object(
  {
    currency: Type.String({ description: 'Currency code from /currencies' }),
    value: Type.Number(),
    formatted_value: Type.String({ description: 'Display form in the request locale' }),
    formatted_iso_value: Type.String({ description: 'Compact display form' }),
  },

);

export const CountryRefSchema = Type.Object({
  id: Type.Integer(),
  iso_code: Type.String(),
  name: Type.String(),
});

export const CountrySchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    iso_code: Type.String({ minLength: 2, maxLength: 2 }),
    iso3char: Type.String(),
    country_prefix: Type.String(),
    currency_code: Type.String(),
  },

);

export const CitySchema = Type.Object(
  {
    id: Type.Integer(),
    code: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    content: Type.String(),
    headline: Type.String(),
    meta_title: Type.String(),
    meta_description: Type.String(),
    country: CountryRefSchema,
    cover_image_url: Type.String(),
    latitude: Type.Number(),
    longitude: Type.Number(),
    time_zone: Type.String(),
    top: Type.Boolean(),
    url: Type.String(),
    weight: Type.Integer(),
  },

);

export const VenueSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    address: Type.String(),
    cover_image_url: Type.String(),
    description: Type.String(),
    headline: Type.String(),
    latitude: Type.Number(),
    longitude: Type.Number(),
    meta_title: Type.String(),
    meta_description: Type.String(),
    url: Type.String(),
  },

);

export const CategorySchema = Type.Object(
  {
    id: Type.Integer(),
    code: Type.String(),
    name: Type.String(),
    level: Type.String(),
    cover_image_url: Type.String(),
    event_image_url: Type.String(),
    url: Type.String(),
  },

);

export const FlavourSchema = Type.Object(
  { id: Type.Integer(), name: Type.String(), slug: Type.String(), active: Type.Boolean() },

);

export const MetadataItemSchema = Type.Object({ code: Type.String(), name: Type.String() });

export type PriceT = Static<typeof PriceSchema>;
export type CityT = Static<typeof CitySchema>;
export type CountryT = Static<typeof CountrySchema>;
export type VenueT = Static<typeof VenueSchema>;
export type CategoryT = Static<typeof CategorySchema>;
export type FlavourT = Static<typeof FlavourSchema>;
export type MetadataItemT = Static<typeof MetadataItemSchema>;
