import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { MetadataRecord } from '../seed/types.js';
import { renderFlavour, renderMetadata } from './taxonomy.render.js';
import { FlavourSchema, MetadataItemSchema } from './taxonomy.schemas.js';

const MarketSchema = Type.Object({ slug: Type.String(), name: Type.String() });

/** Small reference lists: languages, markets, features, services, flavours. */
export default async function metadataRoutes(app: FastifyInstance) {
  const { catalog } = app;
  const tags = ['metadata'];
  const list = (path: string, summary: string, items: () => MetadataRecord[]) =>
    app.get(path, { schema: { tags, summary, response: { 200: Type.Array(MetadataItemSchema) } } }, async (request) =>
      items().map((m) => renderMetadata(m, request.service.locale.language)),
    );
  list('/languages', 'Content languages', () => catalog.languages);
  list('/features', 'Activity features', () => catalog.features);
  list('/services', 'Activity services', () => catalog.services);
  app.get('/markets', { schema: { tags, summary: 'Markets accepted in the market header', response: { 200: Type.Array(MarketSchema) } } }, async () =>
    catalog.markets.map(({ slug, name }) => ({ slug, name })),
  );
  app.get('/flavours', { schema: { tags, summary: 'Flavours', response: { 200: Type.Array(FlavourSchema) } } }, async (request) =>
    catalog.flavours.map((f) => renderFlavour(f, request.service.locale.language)),
  );
}
