// deploy/compose.yaml and deploy/haproxy.cfg hang together: no image registry is reachable here, so
// the stack is not started (docs/container-and-deployment.md says so); what can be checked without
// it is checked: the services, their health checks, ports, volumes and start order, and the mock's
// environment as the real config loader reads it. The instances' behaviour on one PostgreSQL is
// proven by the process tests (test/store/postgres-process.test.ts), and the image's by
// scripts/container-test.sh: two containers of it on one PostgreSQL, as this file runs them.
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const deploy = join(root, 'deploy');
const text = readFileSync(join(deploy, 'compose.yaml'), 'utf8');
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the compose document, read field by field
const compose: any = parse(text);
const haproxy = readFileSync(join(deploy, 'haproxy.cfg'), 'utf8');
const { db, mock, lb } = compose.services;

/** ${VAR:?message} and ${VAR} as compose substitutes them, from `vars`. */
const substitute = (s: string, vars: Record<string, string>) => s.replace(/\$\{(\w+)(:\?[^}]*)?\}/g, (_, name: string) => vars[name] ?? '');

t.test('three services: PostgreSQL, the mock from this Dockerfile, HAProxy, from official images', async (t) => {
  t.same(Object.keys(compose.services).sort(), ['db', 'lb', 'mock']);
  // In full: podman refuses a short name where no unqualified-search registry is configured.
  t.match(db.image, /^docker\.io\/library\/postgres:\d+$/);
  t.match(lb.image, /^docker\.io\/library\/haproxy:[\d.]+$/);
  t.equal(join(deploy, mock.build.context), root, 'built from the repository root');
  t.ok(existsSync(join(deploy, mock.build.context, mock.build.dockerfile)), 'with its Dockerfile');
  t.ok(mock.deploy.replicas >= 2, 'two or more instances');
  t.equal(mock.read_only, true, 'on a read-only root file system, as scripts/container-test.sh runs them');
});

t.test('the database keeps its data in a named volume, and is healthy once it takes connections', async (t) => {
  const [volume, path] = String(db.volumes[0]).split(':');
  t.equal(path, '/var/lib/postgresql/data');
  t.ok(volume && volume in compose.volumes, `named volume ${volume}`);
  t.match(db.healthcheck.test, ['CMD-SHELL', /pg_isready -U mock -d mock/]);
  t.equal(db.environment.POSTGRES_USER, 'mock');
  t.equal(db.environment.POSTGRES_DB, 'mock');
});

t.test("the mock's environment is one the config loader takes: PostgreSQL at the db service, admin token, --shared", async (t) => {
  const vars = { POSTGRES_PASSWORD: 'pw', MOCK_ADMIN_TOKEN: 'token' };
  const env = Object.fromEntries(Object.entries(mock.environment as Record<string, string>).map(([k, v]) => [k, substitute(String(v), vars)]));
  const { config } = loadConfig([], env);
  const url = new URL(config.db);
  t.same([url.protocol, url.hostname, url.port, url.username, url.password, url.pathname], ['postgres:', 'db', '5432', db.environment.POSTGRES_USER, 'pw', `/${db.environment.POSTGRES_DB}`]);
  t.equal(config.adminToken, 'token');
  t.equal(config.shared, true);
  t.equal(config.port, 8080);
  t.match(mock.environment.MOCK_SERVER_ADMIN_TOKEN, /^\$\{MOCK_ADMIN_TOKEN:\?/, 'no default admin token: compose refuses to start without one');
  t.match(mock.environment.MOCK_SERVER_DB, /\$\{POSTGRES_PASSWORD:\?/, 'nor without the password');
  t.same(mock.depends_on, { db: { condition: 'service_healthy' } });
});

t.test('health: the instances by GET /__admin/health (503 when the database is down), HAProxy checks the same', async (t) => {
  t.type(mock.healthcheck.test, 'string', 'a string: podman-compose 1.0 breaks a list on the second replica');
  t.match(mock.healthcheck.test, /fetch\('http:\/\/127\.0\.0\.1:8080\/__admin\/health'\)/);
  t.match(mock.healthcheck.test, /r\.ok \? 0 : 1/, 'a 503 fails it');
  t.match(haproxy, /^\s*option httpchk GET \/__admin\/health$/m);
  t.match(haproxy, /^\s*http-check expect status 200$/m);
  const template = /^\s*server-template \S+ (\d+) (\w+):(\d+) (.*)$/m.exec(haproxy);
  t.ok(template, 'the instances found by name');
  const [, slots, host, port, rest] = template ?? [];
  t.equal(host, 'mock', 'the mock service');
  t.equal(port, '8080', 'on the port it listens on');
  t.ok(Number(slots) >= mock.deploy.replicas, `room for ${slots} instances`);
  t.match(rest, /\bcheck\b/);
  t.match(rest, /\bresolvers dns\b/);
  t.match(haproxy, /^resolvers dns$/m);
  t.same(lb.depends_on, { mock: { condition: 'service_healthy' } });
});

t.test("one application's requests to one instance while it is up, by its header", async (t) => {
  t.match(haproxy, /^\s*balance hdr\(X-Service-Application\)$/m, 'the default --header-prefix');
  t.match(haproxy, /^\s*hash-type consistent$/m);
  t.notOk('MOCK_SERVER_HEADER_PREFIX' in mock.environment, 'which the instances keep');
});

t.test('HAProxy is published on 8080 with its configuration mounted', async (t) => {
  t.same(lb.ports, ['8080:8080']);
  t.match(haproxy, /^\s*bind :8080$/m);
  const [file, path] = String(lb.volumes[0]).split(':');
  t.ok(existsSync(join(deploy, file ?? '')), `${file} exists beside compose.yaml`);
  t.equal(path, '/usr/local/etc/haproxy/haproxy.cfg', 'where the official image reads it');
  // The event stream's heartbeat (15 s) must come before the server timeout.
  const timeout = /^\s*timeout server (\d+)s$/m.exec(haproxy)?.[1];
  t.ok(Number(timeout) > 15, `timeout server ${timeout}s`);
});
