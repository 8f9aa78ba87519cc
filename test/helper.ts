import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { defaults, type Config } from '../src/config.js';
import { fixedClock, type Clock } from '../src/clock.js';
import { buildCatalog, type Catalog } from '../src/seed/catalog.js';
import { createStore, type Store } from '../src/store/index.js';

export const APP = 'test-app';
/** Headers every partner request needs. */
export const H = { 'x-service-application': APP } as const;

const catalogs = new Map<string, Promise<Catalog>>();

/** The catalog for a seed and size, built once per test process: it is immutable. */
export function testCatalog(seed = 1, catalogSize = 20, fixtures: string | null = null): Promise<Catalog> {
  const key = `${seed}:${catalogSize}:${fixtures}`;
  let c = catalogs.get(key);
  if (!c) {
    c = buildCatalog({ seed, catalogSize, fixtures });
    catalogs.set(key, c);
  }
  return c;
}

export interface TestAppOptions {
  config?: Partial<Config>;
  clock?: Clock;
  /** A hand-built catalog instead of the seeded one. */
  catalog?: Catalog;
  /** A store to use (e.g. createStore(file) for restart tests); default: a memory store. */
  store?: Store;
}

/** An app with a memory store, seed 1, a small catalog and a clock that stands still. */
export async function buildTestApp(opts: TestAppOptions = {}): Promise<FastifyInstance> {
  const config: Config = { ...defaults, seed: 1, catalogSize: 20, db: 'memory', ...opts.config };
  const app = await buildApp({
    config,
    clock: opts.clock ?? fixedClock(),
    catalog: opts.catalog ?? (await testCatalog(config.seed, config.catalogSize, config.fixtures)),
    store: opts.store ?? (await createStore(config.db)),
  });
  await app.ready();
  return app;
}

/**
 * A port of 127.0.0.1 where nothing listens, and where no server a test starts can: one below the
 * range `listen(0)` draws from. A free port found by listening and closing could be drawn again by
 * another test's server before it was used (a drift test once reached one).
 */
export async function deadPort(): Promise<number> {
  for (const port of [9, 19, 47, 69, 99, 101, 113, 199]) {
    const refused = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(false);
      });
      s.once('error', () => resolve(true));
    });
    if (refused) return port;
  }
  throw new Error('something answers on every port probed below 1024 of 127.0.0.1');
}
