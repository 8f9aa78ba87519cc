import type { FastifyInstance } from 'fastify';

/** GET /__admin/scenarios: every loaded scenario (built-in and --scenarios), by name. */
export default async function scenarioAdminRoutes(app: FastifyInstance) {
  // The definitions, not any application's runs: a partner's token may read them too.
  app.get('/scenarios', { config: { control: 'any' }, schema: { summary: 'List the loaded scenarios', description: 'Built-in and --scenarios ones, by name, with their steps.' } }, async () => ({
    scenarios: [...app.scenarios.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((s) => ({ name: s.name, description: s.description, from: s.from, attach: s.attach, steps: s.steps, file: s.file, builtin: s.builtin })),
  }));
}
