import WebSocket from 'ws';
import type { ListenFlags } from '../cli-flags.js';
import { controlProblem, SessionError, type SandboxSession } from '../sandbox-session.js';
import type { ListenerAnswer, RelayedDelivery } from '../webhooks/listeners.js';
import { WebhookSender, type AttemptResult } from '../webhooks/sender.js';

export interface ListenOutput {
  /** One line per event, on stdout. */
  event(line: string): void;
  /** What the listener is doing (connected, reconnecting), on stderr. */
  status(line: string): void;
}

/** Waits between reconnections: doubling from half a second up to ten. */
const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 10_000];
/** The sandbox pings every 15 s: one not heard from for this long is gone (a laptop woke up on another network). */
const SILENT_MS = 40_000;

const time = (d: Date) => d.toISOString().replace('T', ' ').slice(0, 19);
const ms = (n: number) => (n < 10 ? n.toFixed(1) : String(Math.round(n)));

/** `mock-server listen --print-secret`: the secret the listener's deliveries are signed with. */
export async function printSecret(session: SandboxSession): Promise<string> {
  await session.open(session.named !== null && !session.admin, null);
  const query = session.application === null ? '' : `?application=${encodeURIComponent(session.application)}`;
  const token = await session.controlToken();
  let res: Response;
  try {
    res = await fetch(`${session.origin}/__admin/listen/secret${query}`, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(30_000) });
  } catch (e) {
    throw controlProblem(session.origin, { cause: e });
  }
  const body = (await res.json().catch(() => ({}))) as { secret?: string | null; message?: string };
  if (!res.ok) throw new SessionError(`GET /__admin/listen/secret: ${res.status} ${body.message ?? ''}`);
  return body.secret ?? '';
}

/**
 * `mock-server listen`: holds a WebSocket to the sandbox (GET /__admin/listen) and POSTs each
 * delivery it gets to the local receiver, body and headers as the sandbox would send them, one at
 * a time in the order they come; the receiver's status and time go back as the attempt's outcome.
 * A lost connection is opened again with backoff; what was delivered meanwhile waits in the
 * sandbox and comes first. Resolves with the exit code: 0 when stopped (Ctrl-C), 1 when another
 * listener took its place; a refusal (a bad token, another application) rejects with one line.
 */
export async function listen(session: SandboxSession, flags: ListenFlags, out: ListenOutput, stop: AbortSignal): Promise<number> {
  // The built-in client's token opens the control API for one application when the sandbox has an admin token.
  await session.open(session.named !== null && !session.admin, null);
  const sender = new WebhookSender({ proxy: { noProxy: '*' } });
  const target = flags.forwardTo as string;
  let queue = Promise.resolve();
  let connectedOnce = false;
  let failures = 0;

  const forward = async (socket: WebSocket, d: RelayedDelivery) => {
    const r: AttemptResult = await sender.send(target, d.body, d.headers);
    const answer: ListenerAnswer = { type: 'result', ref: d.ref, duration_ms: r.duration_ms, ...(r.status_code !== undefined ? { status_code: r.status_code } : { error: r.error }) };
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(answer));
    const at = new Date();
    if (flags.format === 'json') {
      out.event(JSON.stringify({ at: at.toISOString(), application: d.application, delivery: d.id, order_item_uuid: d.order_item_uuid, order_item_version: d.order_item_version, from: d.from, status: d.status, local: { status_code: r.status_code ?? null, error: r.error ?? null, duration_ms: r.duration_ms } }));
    } else {
      out.event(`${time(at)}  ${d.application}  item ${d.order_item_uuid}  ${d.from ? `${d.from} → ${d.status}` : d.status}  ${r.status_code ?? r.error}  ${ms(r.duration_ms)} ms`);
    }
  };

  const connectOnce = async (): Promise<{ code: number; reason: string } | { fatal: string }> => {
    const url = new URL(`${session.origin}/__admin/listen`);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    if (session.application !== null) url.searchParams.set('application', session.application);
    if (flags.events) url.searchParams.set('events', flags.events.join(','));
    url.searchParams.set('forward_to', target);
    const token = await session.controlToken();
    const socket = new WebSocket(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, handshakeTimeout: 10_000 });
    return new Promise((resolve) => {
      let silent: NodeJS.Timeout | null = null;
      const heard = () => {
        if (silent) clearTimeout(silent);
        silent = setTimeout(() => socket.terminate(), SILENT_MS);
      };
      const onStop = () => socket.close(1000, 'stop');
      stop.addEventListener('abort', onStop, { once: true });
      socket.on('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c)).on('end', () => {
          let message = text.slice(0, 300);
          try {
            message = (JSON.parse(text) as { message?: string }).message ?? message;
          } catch {
            // Not JSON: shown as it came.
          }
          // A refusal is the user's to fix, unless a login of ours was forgotten (a sandbox restarted in memory);
          // a sandbox in trouble (5xx) is waited for.
          const status = res.statusCode ?? 500;
          if (status === 401 && connectedOnce && session.canLogin) void session.login().then(() => resolve({ code: status, reason: message }), (e: Error) => resolve({ fatal: e.message }));
          else if (status < 500) resolve({ fatal: `the sandbox refused the listener: ${status} ${message}` });
          else resolve({ code: status, reason: message });
          socket.terminate();
        });
      });
      socket.on('open', heard);
      socket.on('ping', heard);
      socket.on('message', (data) => {
        heard();
        const m = JSON.parse(String(data)) as RelayedDelivery | { type: 'hello'; application: string | null; events: string[] | null };
        if (m.type === 'hello') {
          connectedOnce = true;
          failures = 0;
          const whose = m.application === null ? "every application's" : `application ${m.application}'s`;
          out.status(`Ready: relaying ${whose} webhooks${m.events ? ` (${m.events.join(', ')})` : ''} from ${session.origin} to ${target} (Ctrl-C to stop)`);
          out.status('Signed as the sandbox signs them: mock-server listen --print-secret shows the secret');
        } else if (m.type === 'delivery') {
          queue = queue.then(() => forward(socket, m)).catch(() => undefined);
        }
      });
      socket.on('error', () => undefined);
      socket.on('close', (code, reason) => {
        if (silent) clearTimeout(silent);
        stop.removeEventListener('abort', onStop);
        resolve({ code, reason: String(reason) });
      });
    });
  };

  try {
    for (;;) {
      const end = await connectOnce();
      if (stop.aborted) return 0;
      if ('fatal' in end) throw new SessionError(end.fatal);
      if (end.code === 4000) {
        out.status(`Stopped: ${end.reason}`);
        return 1;
      }
      if (!connectedOnce && failures === 0 && end.code === 1006) {
        // Never connected: is anything there at all?
        await session.control.health().catch((e: unknown) => {
          throw controlProblem(session.origin, e);
        });
      }
      const wait = BACKOFF_MS[Math.min(failures++, BACKOFF_MS.length - 1)]!;
      out.status(`Connection lost (${end.code}${end.reason ? `: ${end.reason}` : ''}): connecting again in ${wait / 1000} s`);
      await new Promise((r) => setTimeout(r, wait));
      if (stop.aborted) return 0;
    }
  } finally {
    await queue;
    await sender.close();
  }
}
