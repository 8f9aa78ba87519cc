import type { FastifyInstance } from 'fastify';
import { asBuilt } from '../http/as-built.js';
import cartsRoutes from './carts.routes.js';
import customerRoutes from './customer.routes.js';
import ordersRoutes from './orders.routes.js';
import cancellationsRoutes from './cancellations.routes.js';
import vouchersRoutes from './vouchers.routes.js';

/** The booking flow's routes: carts, customer info, orders, payment, cancellations, refunds and vouchers. */
export default async function bookingRoutes(app: FastifyInstance) {
  // Their response schemas document the answers; the answers go out as the handlers build them.
  app.setSerializerCompiler(asBuilt);
  await app.register(cartsRoutes);
  await app.register(customerRoutes);
  await app.register(ordersRoutes);
  await app.register(cancellationsRoutes);
  await app.register(vouchersRoutes);
}
