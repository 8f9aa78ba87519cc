import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { tr } from '../catalog/text.js';
import { clip, errors } from '../http/errors.js';
import { resolve } from './carts.js';
import { orderItemOf as itemOf, orderOf } from './order-lookup.js';
import { BookingVoucherSchema, pdfResponse } from './orders.schemas.js';
import type { Order, OrderItem } from './records.js';
import { qrDataUrl, voucherPdf, type VoucherContent } from './voucher-pdf.js';

/** Where a voucher can be opened without headers (customers follow it from an e-mail). */
export function voucherUrl(request: FastifyRequest, item: OrderItem): string {
  return `${request.protocol}://${request.headers.host ?? 'localhost'}/voucher/view/${item.uuid}?pdf=1`;
}

function content(app: FastifyInstance, order: Order, item: OrderItem, lang: string): VoucherContent {
  const { activity, option, holder } = resolve(app, item);
  const name = (p: Record<string, unknown>) => [p.firstname, p.lastname].filter(Boolean).join(' ');
  return {
    orderIdentifier: order.identifier,
    orderUuid: order.uuid,
    activityTitle: tr(activity.title, lang),
    date: `${item.day}${item.time ? ` ${item.time}` : ''}`,
    tickets: [`${item.quantity} x ${tr(holder.name, lang)} (${tr(option.name, lang)})`],
    leadBooker: `${order.customer.firstname} ${order.customer.lastname}`,
    participants: item.participants_info.map(name).filter(Boolean),
    meetingPoint: tr(activity.meeting_point, lang),
    emergencyPhone: activity.emergency_phone_number,
    supplier: activity.supplier.company_name,
    // The item's code already starts with the order's (MUS4000001-1): it is the whole caption.
    code: item.code,
  };
}

const pdf = (body: Buffer, name: string) => ({ body, headers: { 'content-type': 'application/pdf', 'content-disposition': `inline; filename="${name}.pdf"` } });

/** Voucher endpoints of the partner API (under the base path, with the header rules). */
export default async function vouchersRoutes(app: FastifyInstance) {
  const tags = ['vouchers'];
  const lang = (request: FastifyRequest) => request.service.locale.language;

  app.get<{ Params: { orderUuid: string; activityUuid: string } }>(
    '/orders/:orderUuid/activities/:activityUuid/voucher',
    { schema: { tags, summary: 'PDF with the vouchers of one activity of an order', params: Type.Object({ orderUuid: Type.String(), activityUuid: Type.String() }), response: { 200: pdfResponse('The vouchers of the confirmed (OK) items of the activity, one page each') } } },
    async (request, reply) => {
      const order = orderOf(app, request, request.params.orderUuid);
      const items = order.items.filter((x) => x.activity_uuid === request.params.activityUuid);
      if (!items.length) throw errors.notFound(`Order ${order.uuid} has no item of activity ${clip(request.params.activityUuid)}`);
      const ok = items.filter((x) => x.status === 'OK');
      if (!ok.length) throw errors.voucherNotReady(`No item of activity ${clip(request.params.activityUuid)} is confirmed (status OK) yet`);
      const { body, headers } = pdf(await voucherPdf(ok.map((x) => content(app, order, x, lang(request)))), order.identifier);
      return reply.headers(headers).send(body);
    },
  );

  app.get<{ Params: { orderUuid: string; orderItemUuid: string } }>(
    '/orders/:orderUuid/items/:orderItemUuid/voucher/booking',
    { schema: { tags, summary: 'Voucher data of an item: barcodes, order, activity, product', params: Type.Object({ orderUuid: Type.String(), orderItemUuid: Type.String() }), response: { 200: BookingVoucherSchema } } },
    async (request) => {
      const order = orderOf(app, request, request.params.orderUuid);
      const item = itemOf(order, request.params.orderItemUuid);
      if (item.status !== 'OK') throw errors.voucherNotReady(`Order item ${item.uuid} is ${item.status}: vouchers exist only for OK items`);
      const c = content(app, order, item, lang(request));
      return {
        barcodes: [{ code: c.code, type: 'QRCODE', image: await qrDataUrl(c.code), custom_text: c.tickets[0], image_url: voucherUrl(request, item), used: false }],
        order: { uuid: order.uuid, identifier: order.identifier },
        activity: { uuid: item.activity_uuid, title: c.activityTitle },
        product: { id: item.product_identifier, date: c.date, tickets: c.tickets },
        emergency_phone_number: c.emergencyPhone,
        supplier: { company_name: c.supplier },
      };
    },
  );

  app.get<{ Params: { orderUuid: string; orderItemUuid: string } }>(
    '/orders/:orderUuid/items/:orderItemUuid/vouchers-external',
    { schema: { tags, summary: "Provider's own vouchers (none in the mock)", params: Type.Object({ orderUuid: Type.String(), orderItemUuid: Type.String() }), response: { 200: pdfResponse("The provider's voucher PDF (the mock has none: it answers 404)") } } },
    async (request) => {
      itemOf(orderOf(app, request, request.params.orderUuid), request.params.orderItemUuid);
      throw errors.notFound('This order item has no provider vouchers');
    },
  );
}

/** GET /voucher/view/{itemUuid}: the PDF behind an item's voucher URL, no headers needed. */
export async function voucherViewRoutes(app: FastifyInstance) {
  app.get<{ Params: { itemUuid: string } }>('/voucher/view/:itemUuid', async (request, reply) => {
    const found = app.orderItems.find(request.params.itemUuid);
    if (!found) throw errors.notFound(`Voucher ${clip(request.params.itemUuid)} does not exist`);
    const { order, item } = found;
    if (item.status !== 'OK') throw errors.voucherNotReady(`Order item ${item.uuid} is ${item.status}: vouchers exist only for OK items`);
    const { body, headers } = pdf(await voucherPdf([content(app, order, item, 'en')]), order.identifier);
    return reply.headers(headers).send(body);
  });
}
