import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinFixturesDir } from '../paths.js';
import { FixtureError, loadFixtures } from './fixtures.js';
import { generateActivities } from './generate.js';
import { Random, seededFaker } from './random.js';
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

/** Fixtures (built-in, then the user's) plus `catalogSize` generated activities: a pure function of the options. */
export async function buildCatalog(opts: CatalogOptions): Promise<Catalog> {
  const { currencies } = readJson<{ currencies: Currency[] }>(join(builtinFixturesDir, 'currencies.json'));
  const { markets } = readJson<{ markets: Market[] }>(join(builtinFixturesDir, 'markets.json'));
  const fixtures = loadFixtures(builtinFixturesDir, opts.fixtures) as unknown as CatalogData;
  const currencyByCode = new Map(currencies.map((c) => [c.code, c]));
  for (const a of fixtures.activities) {
    if (!currencyByCode.has(a.supplier_currency)) {
      throw new FixtureError(`fixtures: activity ${a.uuid} has supplier_currency ${a.supplier_currency}, which is not in currencies.json`);
    }
  }
  const random = new Random(opts.seed);
  const generated = generateActivities(random, seededFaker(random), fixtures, opts.catalogSize);
  const data: CatalogData = { ...fixtures, activities: [...fixtures.activities, ...generated] };
  const byId = <T extends { id: number }>(list: T[]) => new Map(list.map((r) => [r.id, r]));
  return {
    ...data,
    currencies,
    currencyByCode,
    markets,
    activityByUuid: new Map(data.activities.map((a) => [a.uuid.toLowerCase(), a])),
    cityById: byId(data.cities),
    countryById: byId(data.countries),
    venueById: byId(data.venues),
    categoryById: byId(data.categories),
    flavourById: byId(data.flavours),
  };
}
