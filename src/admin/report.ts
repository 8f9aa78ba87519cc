import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { clip, errorResponses, errors } from '../http/errors.js';
import { UNATTRIBUTED } from '../report/books.js';

const Query = Type.Object({ application: Type.Optional(Type.String({ minLength: 1 })) }, { additionalProperties: false });

/** GET /__admin/report: the integration report of one application (the only one seen, when none is named). */
export default async function reportRoutes(app: FastifyInstance) {
  app.get<{ Querystring: Static<typeof Query> }>('/report',
    {
      schema: {
        summary: 'The integration report of an application',
        description: 'Findings on how a client uses the partner API and its coverage of the booking flow. `application` may be left out when only one application has made requests. Requests with neither an application header nor a valid token are the application `(unattributed)`.',
        querystring: Query,
        response: errorResponses({ 400: '`application` is needed (none or several applications made requests)', 409: 'The server was started with --report off' }),
      },
    },
    async (request) => {
      const report = app.integrationReport;
      if (!report) throw errors.reportOff();
      let { application } = request.query;
      if (application === undefined) {
        // Requests without any application count only when nothing else was seen.
        const all = report.applications();
        const named = all.filter((a) => a !== UNATTRIBUTED);
        const seen = named.length ? named : all;
        if (seen.length !== 1) {
          throw errors.validation(
            seen.length === 0 ? 'querystring "application" is needed: no application has made a request yet' : `querystring "application" is needed: ${seen.length} applications made requests (${clip(seen.slice(0, 10).join(', '))})`,
          );
        }
        application = seen[0] as string;
      }
      return report.get(application);
    },
  );
}
