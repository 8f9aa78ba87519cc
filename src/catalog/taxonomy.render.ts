import type { Catalog } from '../seed/catalog.js';
import type { CategoryRecord, CityRecord, CountryRecord, FlavourRecord, MetadataRecord, VenueRecord } from '../seed/types.js';
import { tr } from './text.js';
import type { CategoryT, CityT, CountryT, FlavourT, MetadataItemT, VenueT } from './taxonomy.schemas.js';

/** Renderers of the catalog's sub-objects in one language; shared by activities and taxonomy endpoints. */
export function renderCountry(c: CountryRecord, lang: string): CountryT {
  return {
    id: c.id,
    name: tr(c.name, lang),
    iso_code: c.iso_code,
    iso3char: c.iso3char,
    country_prefix: c.country_prefix,
    currency_code: c.currency_code,
  };
}

export function renderCity(c: CityRecord, catalog: Catalog, lang: string): CityT {
  const country = catalog.countryById.get(c.country_id);
  return {
    id: c.id,
    code: c.code,
    name: tr(c.name, lang),
    slug: c.slug,
    content: tr(c.content, lang),
    headline: tr(c.headline, lang),
    meta_title: tr(c.meta_title, lang),
    meta_description: tr(c.meta_description, lang),
    country: country
      ? { id: country.id, iso_code: country.iso_code, name: tr(country.name, lang) }
      : { id: c.country_id, iso_code: '', name: '' },
    cover_image_url: c.cover_image_url,
    latitude: c.latitude,
    longitude: c.longitude,
    time_zone: c.time_zone,
    top: c.top,
    url: c.url,
    weight: c.weight,
  };
}

export function renderVenue(v: VenueRecord, lang: string): VenueT {
  return {
    id: v.id,
    name: tr(v.name, lang),
    address: v.address,
    cover_image_url: v.cover_image_url,
    description: tr(v.description, lang),
    headline: tr(v.headline, lang),
    latitude: v.latitude,
    longitude: v.longitude,
    meta_title: tr(v.meta_title, lang),
    meta_description: tr(v.meta_description, lang),
    url: v.url,
  };
}

export function renderCategory(c: CategoryRecord, lang: string): CategoryT {
  return {
    id: c.id,
    code: c.code,
    name: tr(c.name, lang),
    level: String(c.level),
    cover_image_url: c.cover_image_url,
    event_image_url: c.event_image_url,
    url: c.url,
  };
}

export function renderFlavour(f: FlavourRecord, lang: string): FlavourT {
  return { id: f.id, name: tr(f.name, lang), slug: f.slug, active: f.active };
}

export function renderMetadata(m: MetadataRecord, lang: string): MetadataItemT {
  return { code: m.code, name: tr(m.name, lang) };
}
