import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinFixturesDir } from '../paths.js';
import type {
  ActivityRecord,
  CatalogData,
  CategoryRecord,
  CityRecord,
  CountryRecord,
  FlavourRecord,
  VenueRecord,
} from './types.js';

export interface Currency {
  code: string;
  name: string;
  symbol: string;
  /** Units of this currency per 1 USD. */
  usd_rate: number;
  decimals: number;
}

export interface Market {
  slug: string;
  name: string;
  currency: string;
}

/** The immutable catalog for one seed: built once at start-up, served from memory. */
export interface Catalog extends CatalogData {
  currencies: Currency[];
  currencyByCode: ReadonlyMap<string, Currency>;
  markets: Market[];
  activityByUuid: ReadonlyMap<string, ActivityRecord>;
  cityById: ReadonlyMap<number, CityRecord>;
  countryById: ReadonlyMap<number, CountryRecord>;
  venueById: ReadonlyMap<number, VenueRecord>;
  categoryById: ReadonlyMap<number, CategoryRecord>;
  flavourById: ReadonlyMap<number, FlavourRecord>;
}

export interface CatalogOptions {
  seed: number;
  catalogSize: number;
  /** A user's fixture directory merged over the built-in one, or null. */
  fixtures: string | null;
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

export async function buildCatalog(_opts: CatalogOptions): Promise<Catalog> {
  const { currencies } = readJson<{ currencies: Currency[] }>(join(builtinFixturesDir, 'currencies.json'));
  const { markets } = readJson<{ markets: Market[] }>(join(builtinFixturesDir, 'markets.json'));
  // Placeholder until generation lands: reference data only, no activities.
  const data: CatalogData = {
    countries: [], cities: [], venues: [], categories: [], flavours: [], features: [], services: [],
    food: [], group_sizes: [], languages: [], activities: [],
  };
  return {
    ...data,
    currencies,
    currencyByCode: new Map(currencies.map((c) => [c.code, c])),
    markets,
    activityByUuid: new Map(),
    cityById: new Map(),
    countryById: new Map(),
    venueById: new Map(),
    categoryById: new Map(),
    flavourById: new Map(),
  };
}
