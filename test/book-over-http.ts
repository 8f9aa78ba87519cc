// A booking made the way a partner's client makes it: over HTTP, step by step.

const CONFIRM = '0f5821c5-2046-11e7-9cc9-06a7e332783f';
const LEAD = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };

/** Books one paid order for `application` through the partner API at `apiUrl`; its one item is PENDING. */
export async function bookOverHttp(apiUrl: string, application: string): Promise<{ uuid: string; identifier: string; items: Array<{ uuid: string; code: string }> }> {
  const headers: Record<string, string> = { 'x-service-application': application, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${apiUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  headers.authorization = `Bearer ${(await call('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' })).access_token}`;
  const [s] = await call('GET', `/activities/${CONFIRM}/dates/2026-01-20`);
  const cart = await call('POST', '/carts');
  await call('POST', `/carts/${cart.uuid}/items`, [{ product_identifier: s.groups[0].slots[0].products[0].product_id, quantity: 1, language: 'en' }]);
  await call('PUT', `/carts/${cart.uuid}/customer`, LEAD);
  const order = await call('POST', '/orders', { cart_uuid: cart.uuid });
  await call('POST', '/payments/no/payment', { uuid: order.uuid });
  return order;
}
