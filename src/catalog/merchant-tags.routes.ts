import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { FixtureError, readFixture } from '../auth/clients.js';
import { requirePartner } from '../auth/index.js';
import { builtinFixturesDir } from '../paths.js';
import { findActivity } from './activities.routes.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** client_id -> activity uuid (lower case) -> tags. */
export type MerchantTags = Map<string, Map<string, string[]>>;

/** Validates merchant-tags.json: {merchant_tags: {<client_id>: {<activity uuid>: [tag, ...]}}}. */
export function parseMerchantTags(file: string, doc: unknown, into: MerchantTags = new Map()): MerchantTags {
  const root = (doc as { merchant_tags?: unknown } | null)?.merchant_tags;
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObj(root)) throw new FixtureError(file, '"merchant_tags" must be an object keyed by client_id');
  for (const [clientId, byActivity] of Object.entries(root)) {
    if (!isObj(byActivity)) throw new FixtureError(file, `merchant_tags.${clientId} must be an object keyed by activity UUID`);
    const m = new Map<string, string[]>();
    for (const [uuid, tags] of Object.entries(byActivity)) {
      const at = `merchant_tags.${clientId}.${uuid}`;
      if (!UUID.test(uuid)) throw new FixtureError(file, `${at}: the key must be an activity UUID`);
      if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string' && t !== '')) {
        throw new FixtureError(file, `${at} must be an array of non-empty strings`);
      }
      m.set(uuid.toLowerCase(), tags as string[]);
    }
    into.set(clientId, m);
  }
  return into;
}

/** Built-in tags, then the user's fixture directory (a client there replaces the built-in entry). */
export async function loadMerchantTags(userFixtures: string | null): Promise<MerchantTags> {
  const tags: MerchantTags = new Map();
  for (const dir of [builtinFixturesDir, userFixtures]) {
    if (dir === null) continue;
    const file = join(dir, 'merchant-tags.json');
    const doc = await readFixture(file);
    if (doc !== null) parseMerchantTags(file, doc, tags);
  }
  return tags;
}

const ParamsSchema = Type.Object({ activityUuid: Type.String({ description: 'activity UUID' }) });

/** GET /activities/{uuid}/merchant-tags: the tags set up for the authenticated partner. */
export default async function merchantTagsRoutes(app: FastifyInstance) {
  const tags = await loadMerchantTags(app.config.fixtures);
  app.get<{ Params: Static<typeof ParamsSchema> }>(
    '/activities/:activityUuid/merchant-tags',
    {
      schema: {
        tags: ['activities'],
        summary: "The partner's own tags for an activity (needs a bearer token)",
        params: ParamsSchema,
        security: [{ Partner: [] }],
        response: { 200: Type.Array(Type.String()) },
      },
    },
    async (request) => {
      const partner = requirePartner(request);
      const activity = findActivity(app, request.params.activityUuid);
      return tags.get(partner.clientId)?.get(activity.uuid.toLowerCase()) ?? [];
    },
  );
}
