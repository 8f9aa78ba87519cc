import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { builtinScenariosDir } from '../paths.js';
import { loadScenarios } from './loader.js';
import type { Scenario } from './types.js';

export { ScenarioError, loadScenarios, parseScenario, checkSteps } from './loader.js';
export { dueMoves, nextDueAt, isFinished, receiverDownAt, chaosAt, timeline, matchesAttach, attachedScenario } from './engine.js';
export type { ScenarioRun, ScenarioAction, AttachSubject } from './engine.js';
export type { Scenario, ScenarioStep, AttachRule } from './types.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Scenarios loaded at start-up (built-in, then --scenarios), by name. */
    scenarios: ReadonlyMap<string, Scenario>;
  }
}

export interface ScenariosPluginOptions {
  /** Default: the package's scenarios/. */
  builtinDir?: string;
}

/** Loads every scenario file at start-up: a bad file throws a ScenarioError and the server does not start. */
async function scenariosPlugin(app: FastifyInstance, opts: ScenariosPluginOptions) {
  app.decorate('scenarios', loadScenarios(opts.builtinDir ?? builtinScenariosDir, app.config.scenarios));
}

export default fp(scenariosPlugin, { name: 'scenarios', fastify: '5.x' });
export { scenarioReceiverGate } from './gate.js';
