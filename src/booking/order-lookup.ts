import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clip, errors } from '../http/errors.js';
import type { Order } from './records.js';

/** An order of the request's application, or 404 1400. */
export function orderOf(app: FastifyInstance, request: FastifyRequest, uuid: string): Order {
  const order = app.store.tenant(request.service.application).orders[uuid] as unknown as Order | undefined;
  if (!order) throw errors.notFound(`Order ${clip(uuid)} does not exist`);
  return order;
}
