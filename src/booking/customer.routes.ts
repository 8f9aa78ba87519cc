import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { formSchema, participantsSchema } from '../catalog/forms.js';
import { tr } from '../catalog/text.js';
import { clip, errors } from '../http/errors.js';
import type { Text } from '../seed/types.js';
import { assertOpen, cartOf, openCartIn } from './carts.routes.js';
import { resolve } from './carts.js';
import { passengerInfo, validateForm } from './forms.js';
import { CartCustomerSchema, CheckoutFormSchema, FormJsonSchema, ParticipantSchema } from './carts.schemas.js';
import type { Cart, CustomerData } from './records.js';

const CartParams = Type.Object({ cartUuid: Type.String() });
const ItemParams = Type.Object({ cartUuid: Type.String(), cartItemUuid: Type.String() });
type CP = { Params: Static<typeof CartParams> };
type IP = { Params: Static<typeof ItemParams> };

const t5 = (en: string, it: string, de: string, fr: string, es: string): Text => ({ en, it, de, fr, es });
const FLAG = { type: 'string', enum: ['NO', 'YES'], enum_titles: ['No', 'Yes'] };
const LEAD: [string, Text, Record<string, unknown>, boolean][] = [
  ['firstname', t5('First name', 'Nome', 'Vorname', 'Prénom', 'Nombre'), { type: 'string', minLength: 1 }, true],
  ['lastname', t5('Last name', 'Cognome', 'Nachname', 'Nom', 'Apellido'), { type: 'string', minLength: 1 }, true],
  ['email', t5('E-mail', 'E-mail', 'E-Mail', 'E-mail', 'Correo electrónico'), { type: 'string', format: 'email' }, true],
  ['musement_newsletter', t5('Newsletter', 'Newsletter', 'Newsletter', 'Newsletter', 'Boletín'), FLAG, true],
  ['allow_profiling', t5('Allow profiling', 'Consenti profilazione', 'Profiling erlauben', 'Autoriser le profilage', 'Permitir perfilado'), FLAG, true],
  ['thirdparty_newsletter', t5('Partner offers', 'Offerte dei partner', 'Partnerangebote', 'Offres partenaires', 'Ofertas de socios'), FLAG, true],
  ['events_related_newsletter', t5('Related events', 'Eventi correlati', 'Ähnliche Events', 'Événements liés', 'Eventos relacionados'), FLAG, true],
  ['city', t5('City', 'Città', 'Stadt', 'Ville', 'Ciudad'), { type: 'string' }, false],
  ['address', t5('Address', 'Indirizzo', 'Adresse', 'Adresse', 'Dirección'), { type: 'string' }, false],
  ['zipcode', t5('Postcode', 'CAP', 'Postleitzahl', 'Code postal', 'Código postal'), { type: 'string' }, false],
  ['tax_id', t5('Tax id', 'Codice fiscale', 'Steuernummer', 'Numéro fiscal', 'NIF'), { type: 'string' }, false],
];

/** Activities of a cart that need extra customer data, with their fields. */
function ecdActivities(app: FastifyInstance, cart: Cart) {
  const seen = new Map<string, ReturnType<typeof resolve>['activity']>();
  for (const item of cart.items) {
    const { activity } = resolve(app, item);
    if (activity.booking.extra_customer_data.length) seen.set(activity.uuid, activity);
  }
  return [...seen.values()];
}

/** The cart's customer schema: lead booker fields, plus extra customer data keyed by activity uuid. */
export function customerSchema(app: FastifyInstance, cart: Cart, lang: string) {
  const properties: Record<string, unknown> = {};
  LEAD.forEach(([name, title, type], i) => (properties[name] = { ...type, title: tr(title, lang), propertyOrder: i + 1 }));
  const required = LEAD.filter(([, , , r]) => r).map(([n]) => n);
  const ecd = ecdActivities(app, cart);
  if (ecd.length) {
    properties.extra_customer_data = {
      type: 'object',
      title: tr(t5('Extra customer data', 'Dati aggiuntivi', 'Zusätzliche Angaben', 'Données supplémentaires', 'Datos adicionales'), lang),
      propertyOrder: LEAD.length + 1,
      properties: Object.fromEntries(ecd.map((a) => [a.uuid, formSchema(tr(a.title, lang), a.booking.extra_customer_data, lang)])),
      required: ecd.map((a) => a.uuid),
    };
    required.push('extra_customer_data');
  }
  return { title: 'cart_customer_guest', type: 'object' as const, properties, required };
}

/** One field of the legacy checkout form: its definition, with the value the cart holds ('' when none). */
function formField(name: string, title: Text, type: { type?: unknown; format?: unknown }, required: boolean, value: unknown, lang: string) {
  const kind = type.format === 'date' ? 'date' : type.type === 'number' || type.type === 'integer' ? 'number' : 'text';
  return { name, value: value === undefined || value === null ? '' : String(value), type: kind, required, label: tr(title, lang) };
}

/**
 * GET /carts/{uuid}/form (legacy): the same questions as the customer and participant schemas, as
 * the older flat form: lead booker fields, one ticket per unit of each item with its passenger
 * fields, and the extra customer data per activity, each with the value the cart holds.
 */
export function checkoutForm(app: FastifyInstance, cart: Cart, lang: string) {
  const customer = (cart.customer ?? {}) as Record<string, unknown>;
  return {
    customer: LEAD.map(([name, title, type, required]) => formField(name, title, type, required, customer[name], lang)),
    tickets: cart.items.flatMap((x) => {
      const fields = resolve(app, x).activity.booking.participant_fields;
      return Array.from({ length: x.quantity }, (_, i) => ({
        product: { id: x.product_identifier },
        passengers_info: fields.map((f) => formField(f.name, f.title, f, f.required, x.participants?.[i]?.[f.name], lang)),
      }));
    }),
    extra_customer_data: ecdActivities(app, cart).map((a) => ({
      event: { id: a.uuid },
      fields: a.booking.extra_customer_data.map((f) => formField(f.name, f.title, f, f.required, cart.extra_customer_data[a.uuid]?.[f.name], lang)),
    })),
  };
}

/** Participant info still missing from a cart, for the order's refusal message. */
export function missingParticipants(app: FastifyInstance, cart: Cart): string[] {
  return cart.items.filter((x) => resolve(app, x).activity.booking.participant_fields.length && !x.participants).map((x) => x.uuid);
}

export default async function customerRoutes(app: FastifyInstance) {
  const tags = ['customer info'];
  const lang = (request: FastifyRequest) => request.service.locale.language;
  const itemOf = (cart: Cart, uuid: string) => {
    const item = cart.items.find((x) => x.uuid === uuid);
    if (!item) throw errors.notFound(`Cart item ${clip(uuid)} does not exist`);
    return item;
  };

  app.get<CP>('/carts/:cartUuid/form', { schema: { tags, summary: 'The legacy checkout form: the customer and participant questions as flat field lists', params: CartParams, response: { 200: CheckoutFormSchema } } }, async (request) =>
    checkoutForm(app, cartOf(app, request, request.params.cartUuid), lang(request)),
  );

  app.get<CP>('/carts/:cartUuid/customer/schema', { schema: { tags, summary: 'JSON Schema of the lead booker and extra customer data', params: CartParams, response: { 200: FormJsonSchema } } }, async (request) =>
    customerSchema(app, cartOf(app, request, request.params.cartUuid), lang(request)),
  );

  app.put<CP & { Body: Record<string, unknown> }>(
    '/carts/:cartUuid/customer',
    { schema: { tags, summary: 'Set the lead booker (and extra customer data)', params: CartParams, body: Type.Object({}, { additionalProperties: true }), response: { 200: CartCustomerSchema } } },
    async (request) => {
      const cart = cartOf(app, request, request.params.cartUuid);
      assertOpen(cart);
      validateForm(customerSchema(app, cart, lang(request)), request.body, 'customer');
      const { extra_customer_data, ...lead } = request.body;
      const saved = await app.store.update(request.service.application, (t) => {
        const c = openCartIn(t, cart.uuid);
        c.customer = lead as CustomerData;
        c.extra_customer_data = (extra_customer_data as Cart['extra_customer_data'] | undefined) ?? {};
        c.updated_at = app.now(request.service.application).toISOString();
        return c;
      });
      return { ...saved.customer, extra_customer_data: saved.extra_customer_data };
    },
  );

  const needsParticipants = (cart: Cart, uuid: string) => {
    const item = itemOf(cart, uuid);
    const fields = resolve(app, item).activity.booking.participant_fields;
    if (!fields.length) throw errors.notFound('This cart item does not require participant info');
    return { item, fields };
  };

  app.get<IP>('/carts/:cartUuid/items/:cartItemUuid/participants/schema', { schema: { tags, summary: 'JSON Schema of the participants of an item', params: ItemParams, response: { 200: FormJsonSchema } } }, async (request) => {
    const { item, fields } = needsParticipants(cartOf(app, request, request.params.cartUuid), request.params.cartItemUuid);
    return participantsSchema(fields, lang(request), item.quantity);
  });

  app.get<IP>('/carts/:cartUuid/items/:cartItemUuid/participants', { schema: { tags, summary: 'Participants of an item', params: ItemParams, response: { 200: Type.Array(ParticipantSchema) } } }, async (request) =>
    (itemOf(cartOf(app, request, request.params.cartUuid), request.params.cartItemUuid).participants ?? []).map(passengerInfo),
  );

  app.put<IP & { Body: unknown }>(
    '/carts/:cartUuid/items/:cartItemUuid/participants',
    { schema: { tags, summary: 'Set the participants of an item: one per unit of quantity', params: ItemParams, response: { 200: Type.Array(ParticipantSchema) } } },
    async (request) => {
      const cart = cartOf(app, request, request.params.cartUuid);
      assertOpen(cart);
      const { item, fields } = needsParticipants(cart, request.params.cartItemUuid);
      // The body is the array itself; {participants: [...]} as the schema shows is accepted too.
      const body = request.body as { participants?: unknown } | unknown[];
      const list = Array.isArray(body) ? body : body?.participants;
      validateForm(participantsSchema(fields, lang(request), item.quantity), { participants: list }, 'participants');
      await app.store.update(request.service.application, (t) => {
        const c = openCartIn(t, cart.uuid);
        c.items = c.items.map((x) => (x.uuid === item.uuid ? { ...x, participants: list as Record<string, unknown>[] } : x));
      });
      return (list as Record<string, unknown>[]).map(passengerInfo);
    },
  );
}
