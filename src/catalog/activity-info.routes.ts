import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { clip, errors } from '../http/errors.js';
import { compareVersions } from '../http/service-headers.js';
import { findActivity } from './activities.routes.js';
import { formSchema, participantsSchema } from './forms.js';
import { renderCity, renderCountry, renderFlavour } from './taxonomy.render.js';
import { CitySchema, CountrySchema, FlavourSchema } from './taxonomy.schemas.js';
import { tr } from './text.js';
import type { ActivityRecord } from '../seed/types.js';

const Params = Type.Object({ activityUuid: Type.String({ description: 'activity UUID' }) });
type P = { Params: Static<typeof Params> };

const FormSchemaSchema = Type.Object(
  { title: Type.String(), type: Type.Literal('object'), properties: Type.Record(Type.String(), Type.Any()), required: Type.Array(Type.String()) },
  { additionalProperties: true },
);

/** Per-activity information endpoints: media, places, languages, pickups, policies and form schemas. */
export default async function activityInfoRoutes(app: FastifyInstance) {
  const { catalog } = app;
  const tags = ['activity info'];
  const lang = (request: { service: { locale: { language: string } } }) => request.service.locale.language;

  app.get<P>(
    '/activities/:activityUuid/media',
    {
      schema: {
        tags, summary: 'Images and videos', params: Params,
        response: { 200: Type.Array(Type.Object({ id: Type.Integer({ minimum: 1 }), is_cover: Type.Boolean(), title: Type.String(), type: Type.Enum(['image', 'video']), url: Type.String() })) },
      },
    },
    async (request) => {
      const a = findActivity(app, request.params.activityUuid);
      if (a.media.length === 0) throw errors.notFound(`No media found for activity ${a.uuid}`);
      return a.media.map((m) => ({ id: m.id, is_cover: m.is_cover, title: tr(m.title, lang(request)), type: m.type, url: m.url }));
    },
  );

  app.get<P>(
    '/activities/:activityUuid/flavours',
    { schema: { tags, summary: 'Flavours of the activity', params: Params, response: { 200: Type.Array(FlavourSchema) } } },
    async (request) => {
      const a = findActivity(app, request.params.activityUuid);
      return a.flavour_ids.flatMap((id) => {
        const f = catalog.flavourById.get(id);
        return f ? [renderFlavour(f, lang(request))] : [];
      });
    },
  );

  app.get<P>(
    '/activities/:activityUuid/country',
    { schema: { tags, summary: "Country of the activity's default city", params: Params, response: { 200: CountrySchema } } },
    async (request) => {
      const a = findActivity(app, request.params.activityUuid);
      const country = catalog.countryById.get(catalog.cityById.get(a.city_id)?.country_id ?? -1);
      if (!country) throw errors.notFound(`No country for activity ${a.uuid}`);
      return renderCountry(country, lang(request));
    },
  );

  /** The activity's cities for this application: the catalog's, then its PUTs and DELETEs. */
  const destinationsOf = (application: string, a: ActivityRecord): number[] => {
    const change = app.store.tenant(application).destinations[a.uuid];
    const ids = [a.city_id, ...a.destination_city_ids, ...(change?.added ?? [])];
    return [...new Set(ids)].filter((id) => id === a.city_id || !change?.removed.includes(id));
  };

  app.get<P>(
    '/activities/:activityUuid/destinations',
    {
      config: { readsState: true },
      schema: {
        tags, summary: 'Cities of the activity; default marks the one shown in activity endpoints', params: Params,
        response: { 200: Type.Array(Type.Intersect([CitySchema, Type.Object({ default: Type.Boolean() })])) },
      },
    },
    async (request) => {
      const a = findActivity(app, request.params.activityUuid);
      return destinationsOf(request.service.application, a).flatMap((id, i) => {
        const city = catalog.cityById.get(id);
        return city ? [{ ...renderCity(city, catalog, lang(request)), default: i === 0 }] : [];
      });
    },
  );

  const DestinationParams = Type.Object({
    activityUuid: Type.String(),
    destinationUuid: Type.String({ description: 'the city id (the City object has no uuid)' }),
  });
  type DP = { Params: Static<typeof DestinationParams> };
  const cityOf = (raw: string) => {
    const id = /^\d+$/.test(raw) ? Number(raw) : NaN;
    const city = catalog.cityById.get(id);
    if (!city) throw errors.notFound(`Destination ${clip(raw)} does not exist`);
    return city;
  };

  app.put<DP>(
    '/activities/:activityUuid/destinations/:destinationUuid',
    { config: { readsState: true }, schema: { tags, summary: 'Add a destination city (kept per application)', params: DestinationParams } },
    async (request, reply) => {
      const a = findActivity(app, request.params.activityUuid);
      const city = cityOf(request.params.destinationUuid);
      await app.store.update(request.service.application, (t) => {
        const change = (t.destinations[a.uuid] ??= { added: [], removed: [] });
        if (!change.added.includes(city.id)) change.added = [...change.added, city.id];
        change.removed = change.removed.filter((id) => id !== city.id);
      });
      return reply.code(204).send();
    },
  );

  app.delete<DP>(
    '/activities/:activityUuid/destinations/:destinationUuid',
    { config: { readsState: true }, schema: { tags, summary: 'Remove a destination city (kept per application)', params: DestinationParams } },
    async (request, reply) => {
      const a = findActivity(app, request.params.activityUuid);
      const city = cityOf(request.params.destinationUuid);
      if (city.id === a.city_id) throw errors.validation(`City ${city.id} is the default destination of ${a.uuid} and cannot be removed`);
      if (!destinationsOf(request.service.application, a).includes(city.id)) throw errors.notFound(`City ${city.id} is not a destination of ${a.uuid}`);
      await app.store.update(request.service.application, (t) => {
        const change = (t.destinations[a.uuid] ??= { added: [], removed: [] });
        change.added = change.added.filter((id) => id !== city.id);
        if (!change.removed.includes(city.id)) change.removed = [...change.removed, city.id];
      });
      return reply.code(204).send();
    },
  );

  app.get<P>(
    '/activities/:activityUuid/metadata/languages',
    { schema: { tags, summary: 'Languages usable for a timeslot', params: Params, response: { 200: Type.Object({ languages: Type.Array(Type.String()) }) } } },
    async (request, reply) => {
      const a = findActivity(app, request.params.activityUuid);
      if (a.booking.languages.length === 0) return reply.code(204).send();
      return { languages: [...new Set(a.booking.languages)] };
    },
  );

  app.get<P>(
    '/activities/:activityUuid/languages',
    { schema: { tags, summary: 'Languages of an activity (guide or audio), with their names', params: Params, response: { 200: Type.Array(Type.Object({ code: Type.String(), name: Type.String() })) } } },
    async (request) => {
      const a = findActivity(app, request.params.activityUuid);
      if (a.booking.languages.length === 0) throw errors.notFound('No languages found for the activity');
      const lang = request.service.locale.language;
      return [...new Set(a.booking.languages)].map((code) => {
        const m = app.catalog.languages.find((l) => l.code === code);
        return { code, name: m ? tr(m.name, lang) : code };
      });
    },
  );

  app.get<P>(
    '/activities/:activityUuid/pickups',
    {
      schema: {
        tags: ['pickups'], summary: 'Pickup points; one is mandatory in dates and cart items when present', params: Params,
        response: {
          200: Type.Array(Type.Object({
            uuid: Type.String(), type: Type.Enum(['HOTEL', 'PICKUP']), name: Type.String(), latitude: Type.Number(), longitude: Type.Number(),
            tags: Type.Array(Type.Object({ id: Type.String(), type: Type.String() })),
          })),
        },
      },
    },
    async (request) => findActivity(app, request.params.activityUuid).booking.pickups.map((p) => ({ ...p, tags: [] })),
  );

  app.get<P>(
    '/activities/:activityUuid/refund-policies',
    {
      schema: {
        tags, summary: 'Refund tiers: the share refunded when cancelling at least period before the start', params: Params,
        response: { 200: Type.Array(Type.Object({ uuid: Type.String(), period: Type.String(), type: Type.Enum(['PERCENTAGE', 'ABSOLUTE']), value: Type.Number(), currency_code: Type.Optional(Type.String()) })) },
      },
    },
    async (request) => {
      const a = findActivity(app, request.params.activityUuid);
      const policies = a.booking.refund_policies;
      // Before 3.5.0 an activity without policies answered 404; from 3.5.0 an empty list.
      if (policies.length === 0 && compareVersions(request.service.version, '3.5.0') < 0) {
        throw errors.notFound('No refund policy version for the activity');
      }
      return policies.map((p) => ({ ...p, ...(p.type === 'ABSOLUTE' ? { currency_code: a.supplier_currency } : {}) }));
    },
  );

  app.get<P>(
    '/activities/:activityUuid/extra-customer-data/schema',
    { schema: { tags: ['customer info'], summary: 'Preview of the extra customer data the cart will ask for', params: Params, response: { 200: FormSchemaSchema } } },
    async (request) => {
      const a = findActivity(app, request.params.activityUuid);
      if (a.booking.extra_customer_data.length === 0) throw errors.notFound(`Activity ${a.uuid} needs no extra customer data`);
      return formSchema('extra_customer_data', a.booking.extra_customer_data, lang(request));
    },
  );

  app.get<P>(
    '/activities/:activityUuid/participants-info/schema',
    { schema: { tags: ['customer info'], summary: 'Preview of the per-participant info the cart will ask for', params: Params, response: { 200: FormSchemaSchema } } },
    async (request) => {
      const a = findActivity(app, request.params.activityUuid);
      if (a.booking.participant_fields.length === 0) throw errors.notFound(`Activity ${a.uuid} needs no participant info`);
      return participantsSchema(a.booking.participant_fields, lang(request));
    },
  );
}
