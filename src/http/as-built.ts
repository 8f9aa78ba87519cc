import type { FastifySerializerCompiler } from 'fastify';

/**
 * The serializer of routes whose response schemas document their answers without building them.
 * The app's own serializer (fast-json-stringify, src/app.ts) writes what a schema lists, in the
 * schema's order, coercing types, and drops the rest; these handlers build their answers field by
 * field (customer fields as the partner sent them, fields left out rather than null), so the answer
 * goes out exactly as JSON.stringify writes it: the bytes the route sent before it had a schema.
 * test/http/docs-answers.test.ts holds every booking answer to that.
 */
export const asBuilt: FastifySerializerCompiler<unknown> = () => (data: unknown) => JSON.stringify(data);
