import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { builtinScenariosDir } from '../../src/paths.js';
import { loadScenarios, parseScenario, ScenarioError } from '../../src/scenarios/index.js';
import { canMove } from '../../src/lifecycle/order-item-status.js';
import { isStatusStep } from '../../src/scenarios/types.js';
import { buildWebhookApp } from '../webhooks/receiver.js';

t.test('the built-in scenarios load and follow the transition table', async (t) => {
  const all = loadScenarios(builtinScenariosDir, null);
  t.same([...all.keys()].sort(), [
    'cancellation',
    'cancellation-error',
    'cancellation-error-kept',
    'delayed-confirmation',
    'duplicate-delivery',
    'instant-confirmation',
    'receiver-down',
    'refusal',
  ]);
  const path = (name: string) => {
    const s = all.get(name)!;
    return [s.from, ...s.steps.filter(isStatusStep).map((x) => x.status)].join('>');
  };
  t.equal(path('instant-confirmation'), 'PENDING>OK');
  t.equal(path('delayed-confirmation'), 'PENDING>OK');
  t.equal(path('refusal'), 'PENDING>KO');
  t.equal(path('cancellation'), 'OK>REFUND_STARTED>REFUNDED');
  t.equal(path('cancellation-error'), 'OK>REFUND_STARTED>CANCELLATION_ERROR>REFUNDED');
  t.equal(path('cancellation-error-kept'), 'OK>REFUND_STARTED>CANCELLATION_ERROR>OK');
  t.equal(path('receiver-down'), 'PENDING>OK');
  t.equal(path('duplicate-delivery'), 'PENDING>OK');
  t.same(all.get('duplicate-delivery')!.steps[0], { after: 'PT0S', chaos: { duplicate: 1 } });
  for (const s of all.values()) {
    t.ok(s.builtin);
    t.equal(s.file, `scenarios/${s.file.slice('scenarios/'.length)}`);
    let cur = s.from;
    for (const step of s.steps.filter(isStatusStep)) {
      t.ok(canMove(cur, step.status), `${s.name}: ${cur} -> ${step.status}`);
      cur = step.status;
    }
  }
  t.same(all.get('refusal')!.attach, { lead_booker_email: 'ko@example.com', on: 'payment' });
  t.same(all.get('delayed-confirmation')!.steps, [{ after: 'PT2M', status: 'OK' }]);
});

const bad: Array<[string, string, string]> = [
  ['a.yaml', 'name: a\ndescription: x\nsteps:\n  - after: 2 minutes\n    status: OK\n', 'Scenario file a.yaml: /steps/0/after: "2 minutes" is not an ISO 8601 duration >= 0 such as PT0S, PT2M or P1D'],
  ['b.yaml', 'name: b\ndescription: x\nsteps:\n  - after: PT0S\n    status: REFUNDED\n', 'Scenario file b.yaml: /steps/0/status: PENDING cannot move to REFUNDED (allowed: OK, KO)'],
  ['c.yaml', 'name: c\ndescription: x\nsteps:\n  - after: PT0S\n    status: DONE\n', 'Scenario file c.yaml: /steps/0/status: must be one of PENDING, OK, KO, CANCELLATION_ERROR, REFUND_STARTED, REFUNDED'],
  ['d.yaml', 'name: d\nsteps:\n  - after: PT0S\n    status: OK\n', 'Scenario file d.yaml: /description: is required'],
  ['e.yaml', 'name: e\ndescription: x\ncolour: red\nsteps: []\n', 'Scenario file e.yaml: /colour: is not a known field'],
  ['f.yaml', 'name: f\ndescription: x\nsteps: []\n', 'Scenario file f.yaml: /steps: must NOT have fewer than 1 items'],
  ['g.yaml', 'name: g\ndescription: x\nsteps:\n  - after: PT0S\n', 'Scenario file g.yaml: /steps/0: needs exactly one of "status", "receiver" or "chaos"'],
  ['h.yaml', 'name: h\ndescription: x\nsteps:\n  - after: PT0S\n    status: OK\n    receiver: down\n', 'Scenario file h.yaml: /steps/0: needs exactly one of "status", "receiver" or "chaos"'],
  ['i.yaml', 'name: I Am Bad\ndescription: x\nsteps:\n  - {after: PT0S, status: OK}\n', 'Scenario file i.yaml: /name: must match pattern "^[a-z0-9][a-z0-9-]*$"'],
  ['j.yaml', 'name: j\ndescription: x\nfrom: KO\nsteps:\n  - {after: PT0S, status: OK}\n', 'Scenario file j.yaml: /steps/0/status: KO cannot move to OK (KO is final)'],
  ['k.yaml', 'name: k\ndescription: x\nattach: {on: payment}\nsteps:\n  - {after: PT0S, status: OK}\n', 'Scenario file k.yaml: /attach: needs at least one of activity_uuid, product_id, lead_booker_email'],
  ['l.yaml', 'name: l\ndescription: x\nfrom: OK\nattach: {lead_booker_email: a@b.c}\nsteps:\n  - {after: PT0S, status: REFUNDED}\n', 'Scenario file l.yaml: /from: a scenario attached on payment starts from PENDING, not OK'],
  ['m.yaml', 'name: m\ndescription: x: y\n', 'Scenario file m.yaml: not valid YAML at line 2 (Nested mappings are not allowed in compact mappings)'],
  ['n.json', '{"name": "n",', 'Scenario file n.json: not valid JSON ('],
  ['o.yaml', '- just a list\n', 'Scenario file o.yaml: /: must be an object with name, description and steps'],
  ['p.yaml', 'name: p\ndescription: x\nsteps:\n  - {after: -PT1M, status: OK}\n', 'Scenario file p.yaml: /steps/0/after: "-PT1M" is not an ISO 8601 duration >= 0 such as PT0S, PT2M or P1D'],
];

t.test('a bad file throws a ScenarioError naming the file and the field', async (t) => {
  for (const [file, text, message] of bad) {
    try {
      parseScenario(file, text);
      t.fail(`${file} should not load`);
    } catch (e) {
      t.ok(e instanceof ScenarioError, file);
      const err = e as ScenarioError;
      t.equal(err.name, 'ScenarioError');
      t.equal(err.userFacing, true);
      if (message.endsWith('(')) t.equal(err.message.slice(0, message.length), message, file);
      else t.equal(err.message, message, file);
    }
  }
});

t.test('JSON files, user directories overriding built-ins, duplicate names', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mock-scenarios-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'refusal.json'), JSON.stringify({ name: 'refusal', description: 'slow refusal', steps: [{ after: 'PT1H', status: 'KO' }] }));
  await writeFile(join(dir, 'mine.yml'), 'name: mine\ndescription: mine\nattach:\n  product_id: 42\nsteps:\n  - {after: P1D, status: OK}\n');
  await writeFile(join(dir, 'notes.txt'), 'not a scenario');
  const all = loadScenarios(builtinScenariosDir, dir);
  t.equal(all.size, 9);
  t.match(all.get('refusal'), { description: 'slow refusal', builtin: false, file: join(dir, 'refusal.json'), attach: null });
  t.same(all.get('mine')!.attach, { product_id: 42, on: 'payment' });

  await writeFile(join(dir, 'twin.yaml'), 'name: mine\ndescription: again\nsteps:\n  - {after: PT0S, status: OK}\n');
  t.throws(() => loadScenarios(builtinScenariosDir, dir), {
    name: 'ScenarioError',
    message: `Scenario file ${join(dir, 'twin.yaml')}: /name: "mine" is already used by ${join(dir, 'mine.yml')}`,
  });
  t.throws(() => loadScenarios(builtinScenariosDir, join(dir, 'nope')), { message: `Scenario directory ${join(dir, 'nope')} does not exist` });
});

t.test('a scenario file is parsed once per text: an edited file loads as edited', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mock-scenarios-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'mine.yaml'), 'name: mine\ndescription: first\nsteps:\n  - {after: PT0S, status: OK}\n');
  const first = loadScenarios(builtinScenariosDir, dir).get('mine')!;
  t.equal(loadScenarios(builtinScenariosDir, dir).get('mine'), first, 'the same text: the same parsed scenario');
  await writeFile(join(dir, 'mine.yaml'), 'name: mine\ndescription: second\nsteps:\n  - {after: PT1H, status: KO}\n');
  const second = loadScenarios(builtinScenariosDir, dir).get('mine')!;
  t.equal(second.description, 'second');
  t.same(second.steps, [{ after: 'PT1H', status: 'KO' }]);
  await writeFile(join(dir, 'mine.yaml'), 'name: mine\nsteps: nope\n');
  t.throws(() => loadScenarios(builtinScenariosDir, dir), { name: 'ScenarioError' }, 'an edit that breaks the file is seen too');
});

t.test('a bad scenario file stops the app from starting', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mock-scenarios-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'broken.yaml'), 'name: broken\ndescription: x\nsteps:\n  - {after: PT0S, status: REFUND_STARTED}\n');
  await t.rejects(buildWebhookApp({ config: { scenarios: dir } }), {
    name: 'ScenarioError',
    userFacing: true,
    message: `Scenario file ${join(dir, 'broken.yaml')}: /steps/0/status: PENDING cannot move to REFUND_STARTED (allowed: OK, KO)`,
  });
});
