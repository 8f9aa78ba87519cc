import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinFixturesDir } from '../paths.js';

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
export interface Catalog {
  currencies: Currency[];
  markets: Market[];
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
  return { currencies, markets };
}
