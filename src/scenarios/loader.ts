import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { parseDocument } from 'yaml';
import { canMove, TRANSITIONS, type OrderItemStatus } from '../lifecycle/order-item-status.js';
import { packageRoot } from '../paths.js';
import { tryParseDuration } from '../time/duration.js';
import { ScenarioFileSchema, type ScenarioFile } from './schema.js';
import type { Scenario, ScenarioStep } from './types.js';
import { Memo } from '../memo.js';

/** A bad scenario file: the CLI prints this one line (file, JSON pointer, problem) and exits 2. */
export class ScenarioError extends Error {
  readonly userFacing = true;
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioError';
  }
}

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
// Fastify ships ajv; typebox's own compiler would add start-up time for one small schema.
const validate = new Ajv({ allErrors: false, strict: false }).compile(ScenarioFileSchema);

/** A key as a JSON pointer token (RFC 6901): ~ and / escaped. */
export const pointerToken = (key: unknown) => String(key).replace(/~/g, '~0').replace(/\//g, '~1');

/** "/steps/0/after: is required" from ajv's first error, pointing at the field itself where it can. */
export function describe(e: ErrorObject): [string, string] {
  const p = e.params as Record<string, unknown>;
  const field = (key: unknown) => `${e.instancePath}/${pointerToken(key)}`;
  if (e.keyword === 'required') return [field(p.missingProperty), 'is required'];
  if (e.keyword === 'additionalProperties') return [field(p.additionalProperty), 'is not a known field'];
  if (e.propertyName !== undefined) return [field(e.propertyName), `is not a valid name (${e.message})`];
  if (e.keyword === 'enum') return [e.instancePath, `must be one of ${(p.allowedValues as string[]).join(', ')}`];
  return [e.instancePath, e.message ?? 'is invalid'];
}

/** Checks durations, step kinds and every move against the transition table. [pointer, problem] or null. */
export function checkSteps(from: OrderItemStatus, steps: ReadonlyArray<{ after: string; status?: string; receiver?: string; chaos?: object }>): [string, string] | null {
  let current = from;
  for (const [i, step] of steps.entries()) {
    const d = tryParseDuration(step.after);
    if (!d || d.sign < 0) return [`/steps/${i}/after`, `"${step.after}" is not an ISO 8601 duration >= 0 such as PT0S, PT2M or P1D`];
    if ([step.status, step.receiver, step.chaos].filter((x) => x !== undefined).length !== 1) return [`/steps/${i}`, 'needs exactly one of "status", "receiver" or "chaos"'];
    if (step.status === undefined) continue;
    const to = step.status as OrderItemStatus;
    if (!canMove(current, to)) {
      const allowed = TRANSITIONS[current];
      return [`/steps/${i}/status`, `${current} cannot move to ${to} (${allowed.length ? `allowed: ${allowed.join(', ')}` : `${current} is final`})`];
    }
    current = to;
  }
  return null;
}

/** Parses and checks one file's text; `name` is how messages call the file. */
export function parseScenario(name: string, text: string, builtin = false): Scenario {
  const fail = (pointer: string, problem: string): never => {
    throw new ScenarioError(`Scenario file ${name}: ${pointer || '/'}: ${problem}`);
  };
  let data: unknown;
  if (extname(name) === '.json') {
    try {
      data = JSON.parse(text);
    } catch (e) {
      throw new ScenarioError(`Scenario file ${name}: not valid JSON (${(e as Error).message})`);
    }
  } else {
    const doc = parseDocument(text, { prettyErrors: false });
    const err = doc.errors[0];
    if (err) {
      const line = text.slice(0, err.pos[0]).split('\n').length;
      throw new ScenarioError(`Scenario file ${name}: not valid YAML at line ${line} (${err.message.split('\n')[0]})`);
    }
    data = doc.toJS();
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) fail('', 'must be an object with name, description and steps');
  if (!validate(data)) fail(...describe(validate.errors![0]!));
  const file = data as ScenarioFile;
  const from = file.from ?? 'PENDING';
  const bad = checkSteps(from, file.steps);
  if (bad) fail(...bad);
  let attach: Scenario['attach'] = null;
  if (file.attach) {
    const on = file.attach.on ?? 'payment';
    if (Object.keys(file.attach).filter((k) => k !== 'on').length === 0) fail('/attach', 'needs at least one of activity_uuid, product_id, lead_booker_email');
    const needs = on === 'payment' ? 'PENDING' : 'OK';
    if (from !== needs) fail('/from', `a scenario attached on ${on} starts from ${needs}, not ${from}`);
    attach = { ...file.attach, on };
  }
  return { name: file.name, description: file.description, from, attach, steps: file.steps as ScenarioStep[], file: name, builtin };
}

function filesOf(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ScenarioError(`Scenario directory ${dir} does not exist`);
  return readdirSync(dir)
    .filter((f) => EXTENSIONS.has(extname(f)))
    .sort()
    .map((f) => join(dir, f));
}

/**
 * Loads the built-in scenarios, then the user's directory (--scenarios), whose files replace
 * built-in scenarios of the same name. Two files with one name in the same directory are an error.
 */
/** Parsed scenario files by name and text: every app a process builds loads them (see loadSuite). */
const parsed = new Memo<Scenario>(256);

export function loadScenarios(builtinDir: string, userDir: string | null): Map<string, Scenario> {
  const all = new Map<string, Scenario>();
  for (const [dir, builtin] of [[builtinDir, true], ...(userDir ? [[userDir, false]] : [])] as Array<[string, boolean]>) {
    const seen = new Map<string, string>();
    for (const path of filesOf(dir)) {
      const rel = relative(packageRoot, path);
      const name = rel.startsWith('..') ? path : rel;
      const text = readFileSync(path, 'utf8');
      const s = parsed.get(`${name}\0${builtin}\0${text}`, () => parseScenario(name, text, builtin));
      const twin = seen.get(s.name);
      if (twin) throw new ScenarioError(`Scenario file ${name}: /name: "${s.name}" is already used by ${twin}`);
      seen.set(s.name, name);
      all.set(s.name, s);
    }
  }
  return all;
}
