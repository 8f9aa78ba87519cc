/**
 * One frozen, validated Config built from flags, env and a config file (INTERFACE.md section 1).
 * Precedence: flags win over env, env over the config file, the file over the defaults.
 */
export interface Config {
  port: number;
  host: string;
  basePath: string;
  seed: number;
  catalogSize: number;
  /** Extra fixture directory merged over the built-in fixtures/, or null. */
  fixtures: string | null;
  /** Extra scenario directory, or null. */
  scenarios: string | null;
  /** lowdb JSON file for mutable state, or 'memory'. */
  db: string;
  webhookUrl: string | null;
  webhookSecret: string | null;
  /** Vendor header prefix, e.g. 'X-Service-' makes X-Service-Application. */
  headerPrefix: string;
  logLevel: string;
}

export const defaults: Readonly<Config> = Object.freeze({
  port: 8080,
  host: '127.0.0.1',
  basePath: '/api/v3',
  seed: 1,
  catalogSize: 200,
  fixtures: null,
  scenarios: null,
  db: '.mock-server/state.json',
  webhookUrl: null,
  webhookSecret: null,
  headerPrefix: 'X-Service-',
  logLevel: 'info',
});
