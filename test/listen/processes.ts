// Real processes for the listen and trigger tests: a sandbox, `mock-server listen`, and a receiver on 127.0.0.1.
// Every process started here dies with the test (child.ts), and is killed by the test's teardown.
import type { ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';
import { Webhook } from 'standardwebhooks';
import { spawnOwned } from '../child.js';
import { bin, run, start, type Started } from '../cli-process.js';
import { until as waitFor } from '../until.js';

export interface Proc {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Spawns the CLI; resolves once `ready` matches its output (stdout then stderr), within a minute (a loaded machine is slow). */
export function spawnCli(t: Test, args: string[], ready: RegExp): Promise<Proc> {
  const child = spawnOwned(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH } });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  t.teardown(async () => {
    child.kill('SIGKILL');
    await exited;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready after 60 s: ${out}${err}`)), 60_000);
    const look = () => {
      if (ready.test(out) || ready.test(err)) {
        clearTimeout(timer);
        resolve({ child, stdout: () => out, stderr: () => err, exited });
      }
    };
    child.stdout!.on('data', (d) => ((out += d), look()));
    child.stderr!.on('data', (d) => ((err += d), look()));
    void exited.then((code) => reject(new Error(`exited ${code}: ${out}${err}`)));
  });
}

/** A sandbox (test/cli-process.ts start: a free port, state in memory), killed by the test's teardown. */
export async function sandbox(t: Test, args: string[] = []): Promise<Started> {
  const s = await start(args);
  t.teardown(async () => {
    s.child.kill('SIGKILL');
    await s.exited;
  });
  return s;
}

/** The item a trigger printed (`item  UUID (CODE), STATUS`). */
export const itemOf = (stdout: string) => /^item +([0-9a-f-]{36})/m.exec(stdout)?.[1] ?? '';

/** `mock-server listen`, resolved once it is connected ("Ready"). */
export const listener = (t: Test, args: string[]) => spawnCli(t, ['listen', ...args], /^Ready: /m);

export interface Received {
  status: string;
  item: string;
  version: string;
  id: string;
  verified: boolean;
  headers: IncomingHttpHeaders;
}

/** A receiver on 127.0.0.1 that checks the Standard Webhooks signature with `secret`; `answer` says the status of each request. */
export async function receiver(t: Test, secret: string, answer: (n: number) => number = () => 200) {
  const got: Received[] = [];
  const verifier = new Webhook(`whsec_${Buffer.from(secret).toString('base64')}`);
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c)).on('end', () => {
      let verified = true;
      try {
        verifier.verify(raw, req.headers as Record<string, string>);
      } catch {
        verified = false;
      }
      const body = JSON.parse(raw);
      got.push({ status: body.order_item_status, item: body.order_item_uuid, version: body.order_item_version, id: String(req.headers['webhook-id']), verified, headers: req.headers });
      res.writeHead(answer(got.length)).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, got };
}

/** test/until.ts, with room for a loaded machine. */
export const until = <T>(what: string, check: () => T | Promise<T>) => waitFor(what, check, { ms: 30_000, every: 50 });

export { run };
