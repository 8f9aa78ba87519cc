import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { Type, type Static } from 'typebox';
import { parse } from 'yaml';
import { ORDER_ITEM_STATUSES } from '../lifecycle/order-item-status.js';
import { builtinFixturesDir } from '../paths.js';
import { describe, parseScenario } from '../scenarios/loader.js';
import type { Scenario } from '../scenarios/types.js';
import { FINDINGS } from '../report/findings.js';
import { Memo } from '../memo.js';

/**
 * The certification suite's file format (fixtures/certification/*.yaml): requirements as data. Each
 * check is one of the predicates of predicates.ts; `{name}` and `{name.field}` in a check are the
 * requirement's setup values and what earlier checks bound with `as`.
 */
const Status = Type.Union([Type.Integer({ minimum: 100, maximum: 599 }), Type.Enum(['2xx', '4xx', '5xx'])]);
const ItemStatus = Type.Enum([...ORDER_ITEM_STATUSES]);
const Bind = { as: Type.Optional(Type.String({ pattern: '^[a-z_]+$' })), after: Type.Optional(Type.String()) };
const HEADERS = ['version', 'language', 'currency'] as const;

const Check = Type.Union([
  Type.Object({ request: Type.Union([Type.String(), Type.Array(Type.String(), { minItems: 1 })]), status: Type.Optional(Status), query: Type.Optional(Type.Boolean()), wait_s: Type.Optional(Type.Number({ minimum: 0 })), min: Type.Optional(Type.Integer({ minimum: 1 })), ...Bind }, { additionalProperties: false }),
  Type.Object({ item: Type.Object({ activity: Type.Optional(Type.String()), email: Type.Optional(Type.String()), status: Type.Optional(Type.Array(ItemStatus)), pickup: Type.Optional(Type.Boolean()) }, { additionalProperties: false }), ...Bind }, { additionalProperties: false }),
  Type.Object({ delivery: Type.Object({ item: Type.String(), status: ItemStatus }, { additionalProperties: false }), answered: Type.Optional(Type.Integer({ minimum: 1 })), ...Bind }, { additionalProperties: false }),
  Type.Object({ finding: Type.Union([Type.Enum(['error', 'warning']), Type.Array(Type.String(), { minItems: 1 })]) }, { additionalProperties: false }),
  Type.Object({ headers: Type.Array(Type.Enum([...HEADERS]), { minItems: 1 }), missing: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
  Type.Object({ probe: Type.Literal('refused') }, { additionalProperties: false }),
  Type.Object({ others: Type.Literal('passed') }, { additionalProperties: false }),
]);
export type Check = Static<typeof Check>;
export type Header = (typeof HEADERS)[number];

const Requirement = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z][a-z0-9-]*$' }),
    title: Type.String({ minLength: 1 }),
    instructions: Type.String({ minLength: 1 }),
    failure: Type.String({ minLength: 1 }),
    setup: Type.Optional(Type.Record(Type.String({ pattern: '^[a-z_]+$' }), Type.Union([Type.String(), Type.Number(), Type.Object({ unavailable_day: Type.String() }, { additionalProperties: false })]))),
    scenario: Type.Optional(Type.Object({ on: Type.Enum(['payment', 'cancellation']) }, { additionalProperties: true })),
    fault: Type.Optional(Type.Object({ method: Type.String(), path: Type.String(), status: Type.Integer({ minimum: 400, maximum: 599 }), retry_after_s: Type.Optional(Type.Integer({ minimum: 1, maximum: 60 })) }, { additionalProperties: false })),
    probe: Type.Optional(Type.Boolean()),
    question: Type.Optional(Type.Object({ ask: Type.String({ minLength: 1 }), expect: Type.String({ minLength: 1 }) }, { additionalProperties: false })),
    evidence: Type.Array(Check, { minItems: 1 }),
    never: Type.Optional(Type.Array(Check)),
  },
  { additionalProperties: false },
);
type RequirementFile = Static<typeof Requirement>;

const SuiteFile = Type.Object(
  { suite: Type.String({ pattern: '^[a-z0-9-]+$' }), version: Type.Integer({ minimum: 1 }), title: Type.String(), requirements: Type.Array(Requirement, { minItems: 1 }) },
  { additionalProperties: false },
);

/** A requirement as loaded: its scenario made a Scenario the runner can start. */
export interface RequirementDef extends Omit<RequirementFile, 'scenario'> {
  scenario?: Scenario & { on: 'payment' | 'cancellation' };
}

export interface Suite {
  suite: string;
  version: number;
  title: string;
  requirements: RequirementDef[];
}

/** A suite file that breaks its rules: the server does not start (it ships with the package, so this is a bug). */
export class SuiteError extends Error {
  readonly userFacing = true;
}

const validate = new Ajv({ allErrors: false, strict: false }).compile(SuiteFile);
const PLACEHOLDER = /\{([a-z_]+)(?:\.([a-z_]+))?\}/g;

/** The `{name}` / `{name.field}` placeholders of a text. */
export const placeholders = (text: string): Array<[string, string | undefined]> => [...text.matchAll(PLACEHOLDER)].map((m) => [m[1] as string, m[2]]);

/** Fills `{name}` and `{name.field}` from `vars`; a placeholder without a value stays as written (a hint for people). */
export function fill(text: string, vars: Readonly<Record<string, unknown>>): string {
  return text.replace(PLACEHOLDER, (whole, name: string, field?: string) => {
    const v = field === undefined ? vars[name] : (vars[name] as Record<string, unknown> | undefined)?.[field];
    return v === undefined || v === null || typeof v === 'object' ? whole : String(v);
  });
}

/** Checks what the schema cannot: ids, references to setup and to earlier `as` names, finding ids, scenarios. */
function checkRequirement(r: RequirementFile, path: string): RequirementDef {
  const fail = (problem: string): never => {
    throw new SuiteError(`Certification suite ${path}: requirement ${r.id}: ${problem}`);
  };
  const known = new Set(['prefix', ...Object.keys(r.setup ?? {})]);
  const checkList = (checks: Check[], where: string, binds: boolean) => {
    for (const [i, c] of checks.entries()) {
      const texts = 'request' in c ? [c.request].flat() : 'item' in c ? [c.item.activity ?? '', c.item.email ?? ''] : 'delivery' in c ? [c.delivery.item] : [];
      for (const [name] of texts.flatMap(placeholders)) if (!known.has(name)) fail(`/${where}/${i}: {${name}} is neither a setup value nor an earlier "as"`);
      if ('finding' in c && Array.isArray(c.finding)) for (const f of c.finding) if (!(f in FINDINGS)) fail(`/${where}/${i}: no finding "${f}" in the report`);
      if ('after' in c && c.after !== undefined && !known.has(c.after)) fail(`/${where}/${i}: after "${c.after}" is no earlier "as"`);
      if ('as' in c && c.as !== undefined) {
        if (!binds) fail(`/${where}/${i}: "as" binds only in evidence`);
        known.add(c.as);
      }
    }
  };
  checkList(r.evidence, 'evidence', true);
  checkList(r.never ?? [], 'never', false);
  for (const [name] of placeholders(r.question?.expect ?? '')) if (!known.has(name)) fail(`/question/expect: {${name}} is not bound by the evidence`);
  for (const [name] of placeholders(r.fault?.path ?? '')) if (!(name in (r.setup ?? {}))) fail(`/fault/path: {${name}} is not a setup value`);
  if (!r.scenario) return r as RequirementDef;
  const { on, ...file } = r.scenario as { on: 'payment' | 'cancellation' } & Record<string, unknown>;
  const scenario = parseScenario(`${file.name ?? r.id}.json`, JSON.stringify({ from: on === 'payment' ? 'PENDING' : 'OK', ...file }), true);
  if (scenario.from !== (on === 'payment' ? 'PENDING' : 'OK')) fail(`/scenario/from: a scenario started on ${on} starts from ${on === 'payment' ? 'PENDING' : 'OK'}`);
  return { ...r, scenario: { ...scenario, on } };
}

/** Reads and checks a suite file (YAML). */
/**
 * Parsed suites by file and text: every app a process builds loads the suite, and parsing it took
 * about 20 ms (an app's build is about 100). Read each time, so an edited file is parsed again.
 */
const suites = new Memo<Suite>(16);

export function loadSuite(path: string): Suite {
  const text = readFileSync(path, 'utf8');
  return suites.get(`${path}\0${text}`, () => parseSuite(path, text));
}

function parseSuite(path: string, text: string): Suite {
  const data: unknown = parse(text);
  if (!validate(data)) {
    const [pointer, problem] = describe(validate.errors![0]!);
    throw new SuiteError(`Certification suite ${path}: ${pointer}: ${problem}`);
  }
  const file = data as Static<typeof SuiteFile>;
  const ids = new Set<string>();
  const requirements = file.requirements.map((r) => {
    if (ids.has(r.id)) throw new SuiteError(`Certification suite ${path}: requirement id "${r.id}" is used twice`);
    ids.add(r.id);
    return checkRequirement(r, path);
  });
  return { suite: file.suite, version: file.version, title: file.title, requirements };
}

/** The suite this sandbox certifies against. */
export const SUITE_FILE = join(builtinFixturesDir, 'certification', 'partner-booking-1.yaml');
