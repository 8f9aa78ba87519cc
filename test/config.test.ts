import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, defaults, editDistance, isLoopbackHost, loadConfig, nearest, usage } from '../src/config.js';
import { logFormat } from '../src/logging.js';
import { packageRoot } from '../src/paths.js';
import { tempDir } from './tmp.js';

const dir = tempDir(t, 'config-');
const file = (name: string, body: string) => {
  const p = join(dir, name);
  writeFileSync(p, body);
  return p;
};

t.test('defaults when nothing is given', async (t) => {
  const { command, config } = loadConfig([], {});
  t.equal(command, 'serve');
  t.same(config, defaults);
  t.ok(Object.isFrozen(config));
});

t.test('precedence: flags > env > file > defaults', async (t) => {
  const cfg = file('c.json', JSON.stringify({ port: 7000, seed: 5, 'catalog-size': 10, headerPrefix: 'X-File-', db: 'memory' }));
  const fromFile = loadConfig(['--config', cfg], {}).config;
  t.match(fromFile, { port: 7000, seed: 5, catalogSize: 10, headerPrefix: 'X-File-', db: 'memory' });
  const env = { MOCK_SERVER_SEED: '6', MOCK_SERVER_PORT: '7001', MOCK_SERVER_CONFIG: cfg };
  t.match(loadConfig([], env).config, { port: 7001, seed: 6, catalogSize: 10 }, 'env over file, file named by env');
  t.match(loadConfig(['--seed', '7', '--port', '0'], env).config, { port: 0, seed: 7, catalogSize: 10 }, 'flags over env');
  t.equal(loadConfig([], { PORT: '9000' }).config.port, 9000, 'PORT is a fallback');
  t.equal(loadConfig([], { PORT: '9000', MOCK_SERVER_PORT: '9001' }).config.port, 9001, 'MOCK_SERVER_PORT first');
  t.match(
    loadConfig(['--webhook-url', 'http://u:p@127.0.0.1:9/hook', '--webhook-secret', 's', '--fixtures', '/x', '--scenarios', '/y', '--log-level', 'warn', '--host', '0.0.0.0', '--base-path', '/v3/'], {}).config,
    { webhookUrl: 'http://u:p@127.0.0.1:9/hook', webhookSecret: 's', fixtures: '/x', scenarios: '/y', logLevel: 'warn', host: '0.0.0.0', basePath: '/v3' },
  );
});

t.test('lease: 30 s by default, --lease-ms > MOCK_SERVER_LEASE_MS, at least 100 ms', async (t) => {
  t.equal(loadConfig([], {}).config.leaseMs, 30_000);
  t.equal(loadConfig([], { MOCK_SERVER_LEASE_MS: '1000' }).config.leaseMs, 1000);
  t.equal(loadConfig(['--lease-ms', '2000'], { MOCK_SERVER_LEASE_MS: '1000' }).config.leaseMs, 2000);
  t.throws(() => loadConfig(['--lease-ms', '10'], {}), { userFacing: true, message: /--lease-ms: 10 is out of range 100\.\.3600000/ });
});

t.test('admin token: default none, flag > env > file, never echoed in an error', async (t) => {
  t.equal(loadConfig([], {}).config.adminToken, null, 'none by default');
  const cfg = file('token.json', JSON.stringify({ adminToken: 'from-file' }));
  const dashed = file('token-dashed.json', JSON.stringify({ 'admin-token': 'from-file-2' }));
  t.equal(loadConfig(['--config', cfg], {}).config.adminToken, 'from-file', 'config file, camelCase key');
  t.equal(loadConfig(['--config', dashed], {}).config.adminToken, 'from-file-2', 'config file, flag-style key');
  t.equal(loadConfig(['--config', file('token-null.json', '{"adminToken": null}')], {}).config.adminToken, null, 'null in the file is none');
  t.equal(loadConfig(['--config', cfg], { MOCK_SERVER_ADMIN_TOKEN: 'from-env' }).config.adminToken, 'from-env', 'env over file');
  t.equal(loadConfig(['--config', cfg], { MOCK_SERVER_ADMIN_TOKEN: '' }).config.adminToken, 'from-file', 'an empty env var is unset');
  t.equal(loadConfig(['--admin-token', 'from-flag', '--config', cfg], { MOCK_SERVER_ADMIN_TOKEN: 'from-env' }).config.adminToken, 'from-flag', 'flag over env');
  t.equal(loadConfig(['replay', 'a.yaml', '--admin-token', 't0k'], {}).config.adminToken, 't0k', 'replay takes it too');
  for (const [argv, env] of [
    [['--admin-token', 'SECRET-1 two words'], {}],
    [[], { MOCK_SERVER_ADMIN_TOKEN: 'SECRET-2\there' }],
    [['--config', file('token-bad.json', '{"adminToken": "SECRET-3 caf\u00e9"}')], {}],
  ] as Array<[string[], NodeJS.ProcessEnv]>) {
    t.throws(() => loadConfig(argv, env), { userFacing: true, message: /(--admin-token|MOCK_SERVER_ADMIN_TOKEN|adminToken): must be printable ASCII without spaces/ }, argv.join(' ') || 'env');
    try {
      loadConfig(argv, env);
    } catch (e) {
      t.notMatch((e as Error).message, /SECRET/, 'the value is not shown');
    }
  }
  t.throws(() => loadConfig(['--admin-token', ''], {}), /--admin-token: must be printable ASCII without spaces/);
  t.throws(() => loadConfig(['--config', file('token-num.json', '{"adminToken": 5}')], {}), /adminToken: expected a string/);
});

t.test('isLoopbackHost: 127.0.0.0/8, ::1 and localhost only', async (t) => {
  for (const h of ['127.0.0.1', '127.8.9.10', 'localhost', 'LocalHost', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1']) t.ok(isLoopbackHost(h), h);
  for (const h of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.20', '128.0.0.1', '1::1', '::ffff:10.0.0.1', 'example.com', 'localhost.example.com', 'fe80::1%eth0']) t.notOk(isLoopbackHost(h), h);
});

t.test('commands', async (t) => {
  t.equal(loadConfig(['--help'], {}).command, 'help');
  t.equal(loadConfig(['--version'], {}).command, 'version');
  t.same(loadConfig(['replay', 'a.yaml', 'b.yaml'], {}).args, ['a.yaml', 'b.yaml']);
  t.equal(loadConfig(['replay', 'a.yaml', '--url', 'http://127.0.0.1:9'], {}).url, 'http://127.0.0.1:9');
  const text = usage();
  for (const flag of ['--port', '--host', '--base-path', '--seed', '--catalog-size', '--fixtures', '--scenarios', '--db', '--webhook-url', '--webhook-secret', '--header-prefix', '--config', '--log-level', '--admin-token T']) {
    t.match(text, flag);
  }
  t.match(text, 'MOCK_SERVER_PORT, then PORT');
  t.match(text, /--admin-token T .*\n.*env MOCK_SERVER_ADMIN_TOKEN; default none/);
  t.match(text, /mock-server proxy --upstream URL \[--record DIR\]/);
  t.match(text, /mock-server drift --upstream URL \[--url URL\] \[--application A\] \[--format text\|json\|junit\] \[--allow-writes\]/);
  t.match(text, /--upstream URL .*\n.*env MOCK_SERVER_UPSTREAM; default none/);
  t.match(text, /--record DIR .*\n.*env MOCK_SERVER_RECORD; default none/);
});

t.test('proxy and drift: --upstream from a flag, the env or the config file; refused anywhere else', async (t) => {
  const proxy = loadConfig(['proxy', '--upstream', 'https://sandbox.example.com/api/v3/', '--record', 'rec'], {});
  t.equal(proxy.command, 'proxy');
  t.match(proxy.config, { upstream: 'https://sandbox.example.com/api/v3', record: 'rec' }, 'a trailing slash dropped');
  const cfg = file('proxy.json', JSON.stringify({ upstream: 'http://127.0.0.1:9/api/v3', record: 'r' }));
  t.match(loadConfig(['proxy', '--config', cfg], {}).config, { upstream: 'http://127.0.0.1:9/api/v3', record: 'r' }, 'from the config file');
  t.equal(loadConfig(['drift'], { MOCK_SERVER_UPSTREAM: 'http://127.0.0.1:9/api/v3' }).config.upstream, 'http://127.0.0.1:9/api/v3', 'from the env');
  const drift = loadConfig(['drift', '--upstream', 'http://u.test/api/v3', '--application', 'nightly', '--format', 'junit', '--allow-writes', '--url', 'http://127.0.0.1:8080'], {});
  t.same(drift.drift, { application: 'nightly', format: 'junit', allowWrites: true });
  t.equal(drift.url, 'http://127.0.0.1:8080');
  t.same(loadConfig(['drift', '--upstream', 'http://u.test'], {}).drift, { application: 'mock-server-drift', format: 'text', allowWrites: false }, 'the defaults');
  for (const [argv, message] of [
    [['proxy'], /^proxy needs --upstream URL/],
    [['--config', cfg], /^upstream goes with the proxy and drift commands/],
    [['drift', '--upstream', 'http://u.test', '--record', 'r'], /^record goes with the proxy command/],
    [['proxy', '--upstream', 'ftp://u.test'], /^upstream: "ftp:\/\/u.test" must be an http or https URL$/],
    [['proxy', '--upstream', 'http://u.test/api?x=1'], /must be a base URL, without \?query or #fragment/],
    [['proxy', '--upstream', 'http://me:SECRET@u.test/api'], /^upstream: must not carry user:password credentials/],
    [['report', '--allow-writes'], /^--allow-writes goes with the drift command$/],
  ] as const) {
    t.throws(() => loadConfig([...argv], {}), { userFacing: true, message }, argv.join(' '));
  }
});

t.test('replay --builtin: the shipped replay files, all or by name, wherever the command runs', async (t) => {
  const all = loadConfig(['replay', '--builtin'], {}).args;
  t.ok(all.length >= 6);
  t.ok(all.every((f) => f.startsWith(join(packageRoot, 'scenarios', 'replays')) && f.endsWith('.yaml')), 'absolute paths into the package');
  t.same(loadConfig(['replay', '--builtin', 'pickup', 'participants.yaml'], {}).args, ['pickup', 'participants'].map((n) => join(packageRoot, 'scenarios', 'replays', `${n}.yaml`)));
});

t.test('every mistake is one clear ConfigError', async (t) => {
  const bad: [string[], NodeJS.ProcessEnv, RegExp][] = [
    [['--bogus'], {}, /^unknown option --bogus \(try --help\)$/],
    [['--log-format', 'xml'], {}, /^--log-format: "xml" is not one of pretty, json$/],
    [[], { MOCK_SERVER_LOG_FORMAT: 'JSON' }, /^MOCK_SERVER_LOG_FORMAT: "JSON" is not one of pretty, json$/],
    [['serve'], {}, /unknown command "serve"/],
    [['--url', 'http://127.0.0.1:1'], {}, /--url goes with the replay, webhooks check, report, drift, certify, listen and trigger commands/],
    [['replay'], {}, /replay needs at least one file/],
    [['certify'], {}, /^certify needs --application: the application to certify$/],
    [['certify', 'verify'], {}, /^certify takes --application APP, or one subcommand: mock-server certify verify FILE$/],
    [['certify', '--application', 'a', '--timeout', 'PT1M'], {}, /^--timeout: "PT1M" must be whole seconds$/],
    [['certify', '--application', 'a', '--jwks', 'k.json'], {}, /^--jwks goes with the certify verify command$/],
    [['certify', 'verify', 'c.jwt', '--url', 'http://127.0.0.1:1', '--jwks', 'k.json'], {}, /^certify verify takes --url or --jwks, not both$/],
    [['replay', '--builtin', 'no-such'], {}, /^replay --builtin: no shipped replay "no-such" \(one of .*instant-confirmation/],
    [['--builtin'], {}, /^--builtin goes with the replay command$/],
    [['--port'], {}, /--port/],
    [['--port', '70000'], {}, /--port: 70000 is out of range 0..65535/],
    [['--port', 'abc'], {}, /--port: "abc" is not an integer/],
    [[], { MOCK_SERVER_PORT: '-1' }, /MOCK_SERVER_PORT: -1 is out of range/],
    [['--seed', '1.5'], {}, /--seed: "1.5" is not an integer/],
    [['--catalog-size', '100001'], {}, /--catalog-size: 100001 is out of range/],
    [['--base-path', 'api'], {}, /base-path: "api" must start with \//],
    [['--header-prefix', 'X Service'], {}, /header-prefix/],
    [['--log-level', 'loud'], {}, /--log-level: "loud" is not one of/],
    [['--webhook-url', 'not a url'], {}, /--webhook-url: "not a url" is not a URL/],
    [['--webhook-url', 'ftp://x'], {}, /must be an http or https URL/],
    [['--webhook-url', 'http://u:p%zz@127.0.0.1:9/x'], {}, /--webhook-url: .* not valid percent-encoding/],
    [['--db', ''], {}, /--db: must not be empty/],
    [['--config', join(dir, 'missing.json')], {}, /cannot be read \(ENOENT\)/],
    [['--config', file('bad.json', '{nope')], {}, /not valid JSON/],
    [['--config', file('arr.json', '[]')], {}, /must hold a JSON object/],
    [['--config', file('unknown.json', '{"colour":"red"}')], {}, /unknown key "colour"/],
    [['--config', file('type.json', '{"port":"x"}')], {}, /config file .*type.json: port: "x" is not an integer/],
  ];
  for (const [argv, env, re] of bad) {
    t.throws(() => loadConfig(argv, env), re, argv.join(' ') || JSON.stringify(env));
    try {
      loadConfig(argv, env);
    } catch (e) {
      t.ok(e instanceof ConfigError && e.userFacing && !e.message.includes('\n'));
    }
  }
});

t.test('--log-format: pretty or json from flag, env or file; by default pretty on a terminal, json otherwise', async (t) => {
  t.equal(loadConfig([], {}).config.logFormat, null, 'not given: decided by the terminal');
  t.equal(logFormat(loadConfig([], {}).config, true), 'pretty', 'a terminal: pretty');
  t.equal(logFormat(loadConfig([], {}).config, false), 'json', 'a pipe or file: json');
  t.equal(loadConfig(['--log-format', 'json'], {}).config.logFormat, 'json');
  t.equal(logFormat(loadConfig(['--log-format', 'json'], {}).config, true), 'json', 'the flag wins over the terminal');
  t.equal(logFormat(loadConfig(['--log-format=pretty'], {}).config, false), 'pretty', 'pretty into a pipe when asked');
  t.equal(loadConfig([], { MOCK_SERVER_LOG_FORMAT: 'pretty' }).config.logFormat, 'pretty', 'env');
  const cfg = file('format.json', JSON.stringify({ logFormat: 'pretty' }));
  t.equal(loadConfig(['--config', cfg], {}).config.logFormat, 'pretty', 'config file, camelCase key');
  t.equal(loadConfig(['--config', file('format-dashed.json', '{"log-format": "json"}')], {}).config.logFormat, 'json', 'config file, flag-style key');
  t.equal(loadConfig(['--config', cfg], { MOCK_SERVER_LOG_FORMAT: 'json' }).config.logFormat, 'json', 'env over file');
  t.equal(loadConfig(['--log-format', 'pretty'], { MOCK_SERVER_LOG_FORMAT: 'json' }).config.logFormat, 'pretty', 'flag over env');
  t.match(usage(), /--log-format FORMAT .*pretty .* or json .*\n.*env MOCK_SERVER_LOG_FORMAT; default pretty on a terminal, else json/);
});

t.test('an unknown flag names the nearest known one', async (t) => {
  const message = (argv: string[]) => {
    try {
      loadConfig(argv, {});
    } catch (e) {
      t.ok(e instanceof ConfigError && !e.message.includes('\n'), `${argv.join(' ')}: one line`);
      return (e as Error).message;
    }
    return 'no error';
  };
  t.equal(message(['--prot', '8080']), 'unknown option --prot (did you mean --port?)', 'two letters swapped');
  t.equal(message(['--porrt=8080']), 'unknown option --porrt (did you mean --port?)', 'a letter too many, --flag=value');
  t.equal(message(['--log-formt', 'json']), 'unknown option --log-formt (did you mean --log-format?)', 'a letter missing');
  t.equal(message(['--Seed', '2']), 'unknown option --Seed (did you mean --seed?)', 'case');
  t.equal(message(['--confg', 'x.json']), 'unknown option --confg (did you mean --config?)', '--config is known too');
  t.equal(message(['--admintoken', 't']), 'unknown option --admintoken (did you mean --admin-token?)');
  t.equal(message(['--catalog', '5']), 'unknown option --catalog (did you mean --catalog-size?)', 'the start of a flag');
  t.equal(message(['--webhook', 'x']), 'unknown option --webhook (did you mean --webhook-url or --webhook-secret?)', 'the start of two');
  t.equal(message(['--frobnicate']), 'unknown option --frobnicate (try --help)', 'nothing close');
  t.equal(message(['-p', '1']), 'unknown option -p (try --help)', 'a short flag');
  t.match(message(['--config', file('typo.json', '{"prot": 1}')]), /unknown key "prot" \(did you mean "port"\?\)$/, 'a config file key too');
  t.equal(editDistance('prot', 'port'), 1);
  t.equal(editDistance('', 'abc'), 3);
  t.same(nearest('hots', ['host', 'port', 'seed']), ['host']);
  t.same(nearest('xyz', ['host', 'port']), []);
});
