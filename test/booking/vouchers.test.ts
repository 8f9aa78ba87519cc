import t from 'tap';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { buildTestApp } from '../helper.js';

const fonts = join(packageRoot, 'node_modules/pdfjs-dist/standard_fonts/');

const INSTANT = '4e451a8a-2ee5-493f-aa12-a39f13d7253e';
const CONFIRM = '0f5821c5-2046-11e7-9cc9-06a7e332783f';
const LEAD = { firstname: 'Grace', lastname: 'Hopper', email: 'grace@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };

/** Every text of every page, as a real PDF reader sees it. */
async function pdfText(bytes: Buffer): Promise<{ pages: number; text: string }> {
  const doc = await getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, isEvalSupported: false, standardFontDataUrl: fonts }).promise;
  let text = '';
  for (let p = 1; p <= doc.numPages; p++) {
    const content = await (await doc.getPage(p)).getTextContent();
    text += content.items.map((i) => ('str' in i ? i.str : '')).join(' ') + '\n';
  }
  return { pages: doc.numPages, text };
}

t.test('vouchers: URLs on OK items only, a PDF that opens and names the booking', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const headers: Record<string, string> = { 'x-service-application': 'shop' };
  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => {
    const res = await app.inject({ method, url: `/api/v3${url}`, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    return res;
  };
  const token = (await call('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' })).json();
  headers.authorization = `Bearer ${token.access_token}`;
  const cart = (await call('POST', '/carts')).json();
  for (const [activity, extra] of [[INSTANT, {}], [CONFIRM, { language: 'en' }]] as const) {
    const [s] = (await call('GET', `/activities/${activity}/dates/2026-01-20`)).json();
    await call('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: s.groups[0].slots[0].products[0].product_id, quantity: 2, ...extra }]);
  }
  await call('PUT', `/carts/${cart.uuid}/customer`, LEAD);
  const order = (await call('POST', '/orders', { cart_uuid: cart.uuid })).json();
  t.same(order.items.map((i: { vouchers: unknown[] }) => i.vouchers), [[], []], 'nothing before payment');
  const paid = (await call('POST', '/payments/no/payment', { uuid: order.uuid })).json();
  const [ok, pending] = paid.items;
  t.equal(ok.status, 'OK');
  t.equal(pending.status, 'PENDING');
  t.equal(pending.vouchers.length, 0, 'a PENDING item has no voucher');
  t.match(ok.vouchers, [{ url: `http://localhost:80/voucher/view/${ok.uuid}?pdf=1` }]);

  // The voucher URL needs no headers: customers open it from an e-mail.
  const view = await app.inject({ url: new URL(ok.vouchers[0].url).pathname + '?pdf=1' });
  t.equal(view.statusCode, 200);
  t.equal(view.headers['content-type'], 'application/pdf');
  const pdf = await pdfText(view.rawPayload);
  t.equal(pdf.pages, 1);
  for (const needle of [order.identifier, order.uuid, 'Eiffel Tower summit', '2026-01-20 10:00', '2 x Adult', 'Grace Hopper']) t.match(pdf.text, needle);
  // The QR code's caption is the item's code, which already starts with the order's: once, not twice.
  t.match(ok.code, new RegExp(`^${order.identifier}-1$`));
  const caption = pdf.text.trim().split(/\s+/).pop();
  t.equal(caption, ok.code, 'caption under the QR code: MUS…-1');
  t.notMatch(pdf.text, `${order.identifier}-${order.identifier}`, 'the order code is not repeated');

  const byActivity = await call('GET', `/orders/${order.uuid}/activities/${INSTANT}/voucher`);
  t.equal(byActivity.statusCode, 200);
  t.match((await pdfText(byActivity.rawPayload)).text, 'Eiffel Tower summit');
  const notYet = await call('GET', `/orders/${order.uuid}/activities/${CONFIRM}/voucher`);
  t.equal(notYet.statusCode, 409);
  t.equal((await call('GET', `/orders/${order.uuid}/activities/99999999-9999-4999-8999-999999999999/voucher`)).statusCode, 404);
  t.equal((await app.inject({ url: `/voucher/view/${pending.uuid}` })).statusCode, 409);
  t.equal((await app.inject({ url: '/voucher/view/nope' })).statusCode, 404);

  const booking = (await call('GET', `/orders/${order.uuid}/items/${ok.uuid}/voucher/booking`)).json();
  t.equal(booking.barcodes[0].code, ok.code, 'the barcode encodes the item code');
  t.match(booking, { barcodes: [{ type: 'QRCODE', image: /^data:image\/png;base64,/, used: false }], order: { identifier: order.identifier }, activity: { uuid: INSTANT } });
  t.equal((await call('GET', `/orders/${order.uuid}/items/${pending.uuid}/voucher/booking`)).statusCode, 409);
  t.equal((await call('GET', `/orders/${order.uuid}/items/${ok.uuid}/vouchers-external`)).statusCode, 404);
});
