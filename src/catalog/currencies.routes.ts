import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';

export const CurrencySchema = Type.Object(
  {
    code: Type.String({ description: 'ISO 4217 code' }),
    name: Type.String(),
    symbol: Type.String(),
  },
  { $id: 'Currency' },
);

export default async function currenciesRoutes(app: FastifyInstance) {
  const body = app.catalog.currencies.map(({ code, name, symbol }) => ({ code, name, symbol }));
  app.get(
    '/currencies',
    {
      schema: {
        tags: ['currencies'],
        summary: 'Currencies accepted in the currency header',
        response: { 200: Type.Array(CurrencySchema) },
      },
    },
    async () => body,
  );
}
