// The mock-server dashboard: Preact with htm (one ES module served from node_modules, no build
// step, no CDN). It reads and drives the control API (/__admin); /__admin/events says what changed.
import { html, render, useEffect, useRef, useState } from './vendor/preact-htm.js';

const base = new URL('../', location.href); // the control API: /__admin/
const TOKEN_KEY = 'mock-server-admin-token';

/** The control API: JSON in and out; a non-2xx throws an Error with the answer's {code, message}. */
async function api(method, path, body) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const headers = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(new URL(path, base), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let data;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = text;
  }
  if (!res.ok) {
    const err = new Error(`${method} /__admin/${path}: ${res.status} ${data?.message ?? ''}`.trim());
    err.status = res.status;
    throw err;
  }
  return data;
}

const q = (params) => {
  const s = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== '')).toString();
  return s ? `?${s}` : '';
};
const time = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' Z') : '');
/** 93784000 -> "1 d 2 h 3 min 4 s" */
const span = (ms) => {
  let s = Math.round(Math.abs(ms) / 1000);
  const parts = [];
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['min', 60], ['s', 1]]) {
    if (s >= size) parts.push(`${Math.floor(s / size)} ${unit}`);
    s %= size;
  }
  return parts.join(' ') || '0 s';
};
// Where a receiver comes from and how it signs: the same words as the server's banner.
const receiverNote = (t) =>
  `(${t.source === 'flag' ? 'from --webhook-url' : `stored by PUT /__admin/webhooks/config${t.set_at ? ` at ${t.set_at}` : ''}`}, ${t.signing === 'none' ? 'unsigned' : t.signing === 'own' ? 'signed with its own secret' : 'signed with --webhook-secret'})`;
const statusClass = (n) => (n >= 500 ? 's5' : n >= 400 ? 's4' : n >= 300 ? 's3' : 's2');

const VIEWS = ['Requests', 'Orders', 'Webhooks', 'Clock', 'Faults', 'Report', 'Certification'];

function App() {
  const [view, setView] = useState(() => (VIEWS.includes(location.hash.slice(1)) ? location.hash.slice(1) : 'Requests'));
  const [application, setApplication] = useState('');
  const [live, setLive] = useState('connecting');
  const [ticks, setTicks] = useState({ requests: 0, state: 0, faults: 0 });
  const [error, setError] = useState(null);
  const [needToken, setNeedToken] = useState(false);
  // A new session each time a token is entered: everything is fetched again with it.
  const [session, setSession] = useState(0);
  const [data, setData] = useState({ requests: [], orders: [], deliveries: [], receivers: null, clock: null, faults: [], scenarios: [], report: null, health: null });

  // A new stream each time the server comes back after a stop.
  const [connection, setConnection] = useState(0);

  // Live: the server names what changed, the page fetches that part again.
  useEffect(() => {
    if (needToken) return undefined;
    const token = sessionStorage.getItem(TOKEN_KEY);
    const source = new EventSource(new URL(`events${token ? `?access_token=${encodeURIComponent(token)}` : ''}`, base));
    let poll = null;
    const bump = (e) => {
      const { topics } = JSON.parse(e.data);
      setTicks((t) => Object.fromEntries(Object.entries(t).map(([k, v]) => [k, topics.includes(k) ? v + 1 : v])));
    };
    // A stopped server: the browser's own retries end at the first refused or 503 answer, so the
    // page asks for the health check until the server answers, then opens a new stream.
    const stopped = () => {
      source.close();
      setLive('server stopped');
      poll ??= setInterval(() => {
        fetch(new URL('health', base)).then((r) => r.ok && (clearInterval(poll), setConnection((c) => c + 1)), () => undefined);
      }, 1000);
    };
    source.addEventListener('hello', (e) => {
      setLive('live');
      bump(e);
    });
    source.addEventListener('change', bump);
    source.addEventListener('bye', stopped);
    source.onerror = () => (source.readyState === EventSource.CLOSED ? stopped() : setLive('reconnecting'));
    return () => {
      source.close();
      clearInterval(poll);
    };
  }, [needToken, connection]);

  const load = async (fn) => {
    try {
      await fn();
      setError(null);
    } catch (e) {
      if (e.status === 401) setNeedToken(true);
      else setError(e.message);
    }
  };
  const merge = (part) => setData((d) => ({ ...d, ...part }));

  useEffect(() => {
    load(async () => merge({ requests: (await api('GET', `requests${q({ application, limit: 300 })}`)).requests }));
  }, [ticks.requests, application, session]);
  useEffect(() => {
    load(async () => {
      const [orders, deliveries, receivers, clock] = await Promise.all([
        api('GET', `orders${q({ application })}`),
        api('GET', `webhooks/deliveries${q({ application })}`),
        api('GET', 'webhooks/config'),
        api('GET', `clock${q({ application })}`),
      ]);
      merge({ orders: orders.orders, deliveries: deliveries.deliveries, receivers, clock: { ...clock, fetched: Date.now() } });
    });
  }, [ticks.state, application, session]);
  useEffect(() => {
    load(async () => merge({ faults: (await api('GET', `faults${q({ application })}`)).faults }));
  }, [ticks.faults, application, session]);
  useEffect(() => {
    load(async () => merge({ scenarios: (await api('GET', 'scenarios')).scenarios, health: await api('GET', 'health') }));
  }, [session]);

  // Certification runs, and the latest of the chosen application with its checklist, evaluated when fetched.
  useEffect(() => {
    load(async () => {
      const { runs } = await api('GET', `certifications${q({ application })}`);
      merge({ runs, run: application && runs[0] ? await api('GET', `certifications/${encodeURIComponent(runs[0].id)}${q({ application })}`) : null });
    });
  }, [ticks.requests, ticks.state, application, session]);

  // Reports of the applications on screen: the Requests view puts findings beside their requests.
  // 409: the server runs with --report off (the Report view says so).
  const shownApps = application ? [application] : [...new Set(data.requests.map((r) => r.application).filter(Boolean))].slice(0, 10);
  useEffect(() => {
    load(async () => {
      const reports = await Promise.all(shownApps.map((a) => api('GET', `report${q({ application: a })}`).catch((e) => (e.status === 409 ? null : Promise.reject(e)))));
      merge({ reports: reports.filter(Boolean) });
    });
  }, [ticks.requests, ticks.state, shownApps.join(','), session]);

  const applications = [
    ...new Set([
      ...data.requests.map((r) => r.application),
      ...data.orders.map((o) => o.application),
      ...data.deliveries.map((d) => d.application),
      ...Object.keys(data.receivers?.applications ?? {}),
      application,
    ].filter(Boolean)),
  ].sort();

  const act = (fn) => load(fn);
  const go = (v) => {
    setView(v);
    history.replaceState(null, '', `#${v}`);
  };

  if (needToken) {
    return html`<${TokenForm} refused=${session > 0} onToken=${() => {
      setNeedToken(false);
      setSession((n) => n + 1);
    }} />`;
  }
  const props = { data, application, act };
  return html`
    <header>
      <h1>mock-server</h1>
      <span class="muted">${data.health ? `v${data.health.version}, seed ${data.health.seed}` : ''}</span>
      <nav>${VIEWS.map((v) => html`<button class=${v === view ? 'tab on' : 'tab'} onClick=${() => go(v)}>${v}</button>`)}</nav>
      <label>Application <select value=${application} onChange=${(e) => setApplication(e.target.value)} aria-label="Application">
        <option value="">all</option>
        ${applications.map((a) => html`<option value=${a}>${a}</option>`)}
      </select></label>
      <span class=${`live ${live}`} title="Updates arrive as they happen">${live}</span>
      <a href="../docs" class="muted docs">control API docs</a>
    </header>
    ${error && html`<p class="error" role="alert">${error} <button onClick=${() => setError(null)}>dismiss</button></p>`}
    <main>
      ${view === 'Requests' && html`<${Requests} ...${props} />`}
      ${view === 'Orders' && html`<${Orders} ...${props} />`}
      ${view === 'Webhooks' && html`<${Webhooks} ...${props} />`}
      ${view === 'Clock' && html`<${Clock} ...${props} />`}
      ${view === 'Faults' && html`<${Faults} ...${props} />`}
      ${view === 'Report' && html`<${Report} ...${props} />`}
      ${view === 'Certification' && html`<${Certification} ...${props} />`}
    </main>`;
}

function TokenForm({ onToken, refused }) {
  const input = useRef(null);
  const submit = (e) => {
    e.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, input.current.value.trim());
    onToken();
  };
  return html`<form class="token" onSubmit=${submit}>
    <h1>mock-server</h1>
    <p>This server's control API wants a token: its admin token (the <code>--admin-token</code> it was started with), or your application's access token from <code>POST /login</code>, which shows your application only.</p>
    ${refused && html`<p class="error" role="alert">That token was refused: try again.</p>`}
    <input ref=${input} type="password" autocomplete="current-password" aria-label="Admin token" placeholder="admin token, or your access token" autofocus />
    <button type="submit">Open the dashboard</button>
  </form>`;
}

function Requests({ data }) {
  const [status, setStatus] = useState('');
  const [open, setOpen] = useState(null);
  const findingsOf = new Map();
  for (const r of data.reports ?? []) {
    for (const f of r.findings) for (const ex of [f.first, f.last]) {
      const list = findingsOf.get(ex.reqId) ?? [];
      if (!list.includes(f)) list.push(f);
      findingsOf.set(ex.reqId, list);
    }
  }
  const rows = data.requests.filter((r) => !status || String(r.status).startsWith(status));
  return html`<section>
    <div class="bar">
      <h2>Requests</h2>
      <label>Status <select value=${status} onChange=${(e) => setStatus(e.target.value)} aria-label="Status">
        <option value="">all</option><option value="2">2xx</option><option value="3">3xx</option><option value="4">4xx</option><option value="5">5xx</option>
      </select></label>
      <span class="muted">${rows.length} shown (newest first; click one for its headers and bodies; findings of the integration report beside the request that showed them first or last)</span>
    </div>
    <table class="requests">
      <thead><tr><th>time</th><th>application</th><th>method</th><th>path</th><th>status</th><th>ms</th><th>findings</th></tr></thead>
      <tbody>${rows.map((r) => html`<tr data-request=${r.id} class=${open === r.id ? 'row open' : 'row'} aria-expanded=${open === r.id} onClick=${() => setOpen(open === r.id ? null : r.id)}>
        <td class="nowrap">${time(r.at)}</td><td>${r.application ?? html`<span class="muted">none</span>`}</td><td>${r.method}</td>
        <td class="path">${r.path}</td><td><span class=${`badge ${statusClass(r.status)}`}>${r.status}</span></td><td class="num">${r.duration_ms}</td>
        <td>${(findingsOf.get(r.req_id) ?? []).map((f) => html`<span class=${`badge ${f.severity}`} title=${`${f.message}\nfix: ${f.advice}`}>${f.id}</span> `)}</td>
      </tr>${open === r.id && html`<tr class="detail"><td colspan="7"><${Exchange} id=${r.id} /></td></tr>`}`)}</tbody>
    </table>
    ${rows.length === 0 && html`<p class="muted">No partner request yet. Send one to ${location.origin}/api/v3 with the application header.</p>`}
  </section>`;
}

/** A body as text: JSON laid out when it is whole, as it came otherwise. */
const pretty = (body) => {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
};
const headerLines = (headers) => Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\n');

/** One side of an exchange: headers, then the body (marked when the journal cut it). */
function Message({ title, m }) {
  return html`<div class="message">
    <h4>${title}</h4>
    <pre class="headers">${headerLines(m.headers)}</pre>
    ${m.body === null
      ? html`<p class="muted">no body</p>`
      : html`${m.truncated && html`<p class="badge warning truncated">truncated: the first 16,384 of ${m.bytes} bytes</p>`}<pre class="body">${m.truncated ? m.body : pretty(m.body)}</pre>`}
  </div>`;
}

/** GET /__admin/requests/{id}: the request and its answer, both ways. */
function Exchange({ id }) {
  const [detail, setDetail] = useState(null);
  const [problem, setProblem] = useState(null);
  useEffect(() => {
    api('GET', `requests/${id}`).then(setDetail, (e) => setProblem(e.message));
  }, [id]);
  if (problem) return html`<p class="error">${problem}</p>`;
  if (!detail) return html`<p class="muted">…</p>`;
  if (!detail.request) return html`<p class="muted">Headers and bodies are kept for the latest 500 requests only.</p>`;
  return html`<div class="exchange">
    <${Message} title=${`Request: ${detail.method} ${detail.path}`} m=${detail.request} />
    <${Message} title=${`Response: ${detail.status}`} m=${detail.response} />
  </div>`;
}

function Orders({ data, act }) {
  const move = (item, to, application) => act(() => api('POST', `order-items/${encodeURIComponent(item.uuid)}/status${q({ application })}`, { status: to }));
  const run = (name, item) => act(() => api('POST', `scenarios/${encodeURIComponent(name)}/run`, { order_item_uuid: item.uuid }));
  return html`<section>
    <div class="bar"><h2>Orders</h2><span class="muted">${data.orders.length} orders; each button is a move the lifecycle allows (it sends the webhook)</span></div>
    ${data.orders.length === 0 && html`<p class="muted">No order yet.</p>`}
    ${[...data.orders].reverse().map((o) => html`<article class="order">
      <h3>${o.identifier} <span class="muted">${o.uuid} · ${o.application} · ${o.paid ? 'paid' : 'not paid'} · created ${time(o.created_at)}</span></h3>
      <table>
        <thead><tr><th>item</th><th>status</th><th>version</th><th>date</th><th>qty</th><th>move to</th><th>scenario</th></tr></thead>
        <tbody>${o.items.map((x) => html`<tr data-item=${x.uuid}>
          <td><div>${x.code}</div><div class="muted small">${x.uuid}</div></td>
          <td><span class=${`badge st-${x.status}`}>${x.status}</span></td><td class="num">${x.version}</td><td class="nowrap">${x.date}</td><td class="num">${x.quantity}</td>
          <td>${x.moves.length ? x.moves.map((to) => html`<button class="move" onClick=${() => move(x, to, o.application)}>${to}</button> `) : html`<span class="muted">final</span>`}</td>
          <td>${x.scenario
            ? html`${x.scenario.name}: ${x.scenario.steps_done}/${x.scenario.steps} steps${x.scenario.next_step_at ? `, next at ${time(x.scenario.next_step_at)}` : ''}${x.scenario.stopped ? ` (stopped: ${x.scenario.stopped})` : ''}`
            : html`<select aria-label="Run a scenario" onChange=${(e) => e.target.value && run(e.target.value, x)}>
                <option value="">run a scenario…</option>
                ${data.scenarios.filter((s) => s.from === x.status).map((s) => html`<option value=${s.name} title=${s.description}>${s.name}</option>`)}
              </select>`}</td>
        </tr>`)}</tbody>
      </table>
    </article>`)}
  </section>`;
}

function Webhooks({ data, application, act }) {
  const r = data.receivers;
  const [open, setOpen] = useState(null);
  const [form, setForm] = useState({ application: '', url: '', secret: '' });
  const redeliver = (e, d) => {
    e.stopPropagation();
    act(() => api('POST', `webhooks/deliveries/${encodeURIComponent(d.id)}/redeliver`));
  };
  const target = form.application || application;
  const setReceiver = (e) => {
    e.preventDefault();
    act(async () => {
      if (!target) throw new Error('Name the application whose receiver to set (or choose one above).');
      await api('PUT', 'webhooks/config', { application: target, url: form.url, ...(form.secret ? { secret: form.secret } : {}) });
      setForm({ application: '', url: '', secret: '' });
    });
  };
  const clear = (a) => act(() => api('PUT', 'webhooks/config', { application: a, url: null }));
  const field = (k, label, attrs = {}) => html`<label>${label} <input value=${form[k]} onInput=${(e) => setForm({ ...form, [k]: e.target.value })} aria-label=${`Receiver ${label.toLowerCase()}`} ...${attrs} /></label>`;
  return html`<section>
    <div class="bar"><h2>Webhooks</h2></div>
    <h3>Receivers</h3>
    <ul class="receivers">
      <li>default: ${r?.default ? html`<code>${r.default.url}</code> ${receiverNote(r.default)}` : html`<span class="muted">none</span>`}</li>
      ${Object.entries(r?.applications ?? {}).map(([a, t]) => html`<li data-receiver=${a}>${a}: <code>${t.url}</code> ${receiverNote(t)} <button onClick=${() => clear(a)}>Clear</button></li>`)}
      ${(r?.listeners ?? []).map((l) => html`<li data-listener=${l.application ?? '*'}>${l.application ?? 'every application'}: listener (mock-server listen)${l.forward_to ? html` to <code>${l.forward_to}</code>` : ''}${l.events ? ` (${l.events.join(', ')})` : ''} · <span class=${`badge ${l.connected ? 'delivered' : 'pending'}`}>${l.connected ? 'connected' : 'away: deliveries wait'}</span></li>`)}
    </ul>
    <form class="receiver" onSubmit=${setReceiver}>
      ${field('application', 'Application', { placeholder: application || 'application', size: 14 })}
      ${field('url', 'URL', { placeholder: 'your receiver, http(s)', size: 34, required: true })}
      ${field('secret', 'Secret', { type: 'password', placeholder: 'optional: signs them', autocomplete: 'off', size: 16 })}
      <button type="submit">Set receiver</button>
      <span class="muted small">for one application (PUT /__admin/webhooks/config); Clear drops it</span>
    </form>
    <h3>Deliveries <span class="muted">(${data.deliveries.length}, newest first; click one for its payload and the headers each attempt sent)</span></h3>
    ${data.deliveries.length === 0 && html`<p class="muted">No delivery yet: move an order item, or pay an order, with a receiver configured.</p>`}
    <table class="deliveries">
      <thead><tr><th>delivery</th><th>item status</th><th>state</th><th>attempts</th><th></th></tr></thead>
      <tbody>${[...data.deliveries].reverse().map((d) => html`<tr data-delivery=${d.id} class=${open === d.id ? 'row open' : 'row'} aria-expanded=${open === d.id} onClick=${() => setOpen(open === d.id ? null : d.id)}>
        <td><div>${d.id}${d.target === 'listener' ? html` <span class="badge chaos">listener</span>` : ''}</div><div class="muted small">${d.application} · item ${d.order_item_uuid} v${d.order_item_version}</div></td>
        <td><span class=${`badge st-${d.payload.order_item_status}`}>${d.payload.order_item_status}</span></td>
        <td><span class=${`badge ${d.state}`}>${d.state}</span>${d.waiting ? html`<div class=${`small wait ${d.waiting.reason}`}>${d.waiting.message}</div>` : ''}</td>
        <td><ol class="attempts">${d.attempts.map((a, i) => html`<li class=${i < d.round_start ? 'old' : ''}>
          ${time(a.at)} · ${a.status_code !== undefined ? html`<span class=${`badge ${statusClass(a.status_code)}`}>${a.status_code}</span>` : html`<span class="badge s5">${a.error}</span>`}
          · ${Math.round(a.duration_ms)} ms${a.chaos ? html` · <span class="badge chaos">chaos: ${a.chaos}</span>` : ''}</li>`)}</ol></td>
        <td><button onClick=${(e) => redeliver(e, d)}>Redeliver</button></td>
      </tr>${open === d.id && html`<tr class="detail"><td colspan="5"><${DeliveryDetail} d=${d} /></td></tr>`}`)}</tbody>
    </table>
  </section>`;
}

/** The payload sent, and each attempt's headers (the signature shown; the secret never leaves the server). */
function DeliveryDetail({ d }) {
  return html`<div class="exchange">
    <div class="message"><h4>Payload</h4><pre class="body">${JSON.stringify(d.payload, null, 2)}</pre></div>
    <div class="message"><h4>Headers sent</h4>
      ${d.attempts.length === 0 && html`<p class="muted">No attempt yet.</p>`}
      ${d.attempts.map((a, i) => html`<div class="attempt-headers"><div class="small muted">attempt ${i + 1}, ${time(a.at)}</div>
        ${a.headers ? html`<pre class="headers">${headerLines(a.headers)}</pre>` : html`<p class="muted small">no request was made (${a.error})</p>`}</div>`)}
    </div>
  </div>`;
}

function Clock({ data, act, application }) {
  const [now, setNow] = useState(Date.now());
  const [duration, setDuration] = useState('PT1H');
  const [at, setAt] = useState('');
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  const c = data.clock;
  const server = c ? new Date(Date.parse(c.now) + (now - c.fetched)) : null;
  // The selected application's clock (the server clock plus its own offset), or the server clock.
  const post = (body) => act(() => api('POST', 'clock', application ? { ...body, application } : body));
  const own = c?.application_offset_ms;
  return html`<section>
    <div class="bar"><h2>Clock</h2><span class="muted">${application ? html`of <b>${application}</b>: the server clock${own ? `, ${span(own)} ${own > 0 ? 'ahead' : 'behind'}` : ''}` : 'the server clock, which every application follows (choose one to move only its own)'}</span></div>
    <p class="clock" aria-label="Server time">${server ? time(server.toISOString().replace(/\.\d+Z$/, 'Z')) : '…'}</p>
    <p class="muted">${c && Math.abs(c.offset_ms) >= 1000 ? `${span(c.offset_ms)} ${c.offset_ms > 0 ? 'ahead of' : 'behind'} real time` : 'real time'}. ${application ? `${application}'s` : 'Every application’s'} token expiry, cutoffs, refund tiers, scenario steps and webhook retries follow it; due ones run when it moves.</p>
    <form onSubmit=${(e) => (e.preventDefault(), post({ advance: duration }))}>
      <label>Advance by <input value=${duration} onInput=${(e) => setDuration(e.target.value)} aria-label="Duration" placeholder="PT2H, P1D, -PT30M" /></label>
      <button type="submit">Advance</button>
      ${['PT1M', 'PT10M', 'PT1H', 'P1D'].map((d) => html` <button type="button" onClick=${() => post({ advance: d })}>+${d.replace(/^PT?/, '').toLowerCase()}</button>`)}
    </form>
    <form onSubmit=${(e) => (e.preventDefault(), post({ set: at }))}>
      <label>Set to <input value=${at} onInput=${(e) => setAt(e.target.value)} aria-label="Date-time" placeholder="2026-03-01T09:00:00Z" /></label>
      <button type="submit">Set</button>
    </form>
  </section>`;
}

function Faults({ data, act, application }) {
  const [f, setF] = useState({ method: 'GET', path: '/activities', status: '503', times: '1', delay_ms: '0' });
  const field = (k, label, attrs = {}) => html`<label>${label} <input value=${f[k]} onInput=${(e) => setF({ ...f, [k]: e.target.value })} aria-label=${label} ...${attrs} /></label> `;
  const add = (e) => {
    e.preventDefault();
    const fault = { method: f.method, path: f.path, status: Number(f.status), times: Number(f.times), delay_ms: Number(f.delay_ms) };
    act(() => api('POST', 'faults', application ? { ...fault, application } : fault));
  };
  const clear = () => act(() => api('DELETE', `faults${q({ application })}`));
  return html`<section>
    <div class="bar"><h2>Faults</h2><span class="muted">the next matching partner requests ${application ? html`of <b>${application}</b>` : 'of every application'} answer the status (Prefer: code=… does the same per request)</span></div>
    <form onSubmit=${add} class="fault">
      ${field('method', 'Method', { size: 6 })}${field('path', 'Path')}${field('status', 'Status', { size: 4 })}${field('times', 'Times', { size: 4 })}${field('delay_ms', 'Delay ms', { size: 6 })}
      <button type="submit">Add fault</button>
    </form>
    <table>
      <thead><tr><th>id</th><th>application</th><th>method</th><th>path</th><th>status</th><th>times left</th><th>delay ms</th></tr></thead>
      <tbody>${data.faults.map((x) => html`<tr><td>${x.id}</td><td>${x.application ?? html`<span class="muted">all</span>`}</td><td>${x.method}</td><td class="path">${x.path}</td><td>${x.status}</td><td class="num">${x.times}</td><td class="num">${x.delay_ms}</td></tr>`)}</tbody>
    </table>
    ${data.faults.length === 0 ? html`<p class="muted">No fault armed.</p>` : html`<button onClick=${clear}>${application ? `Clear ${application}'s faults` : 'Clear all faults'}</button>`}
  </section>`;
}

function Report({ data, application }) {
  const reports = data.reports ?? [];
  if (!application && reports.length !== 1) {
    return html`<section><div class="bar"><h2>Report</h2></div><p class="muted">Choose an application above: ${reports.length ? `${reports.length} have made requests` : 'none has made a request yet'}.</p></section>`;
  }
  const r = reports[0];
  if (!r) return html`<section><div class="bar"><h2>Report</h2></div><p class="muted">No report (the server runs with --report off, or nothing was asked yet).</p></section>`;
  const done = r.coverage.steps.filter((s) => s.done).length;
  return html`<section>
    <div class="bar"><h2>Report: ${r.application}</h2>
      <span class=${`badge verdict-${r.verdict}`}>${r.verdict.toUpperCase()}</span>
      <span class="muted">${r.requests} requests since ${time(r.since)}; ${done} of ${r.coverage.steps.length} booking steps done</span></div>
    <h3>Findings</h3>
    ${r.findings.length === 0 ? html`<p class="muted">No finding: nothing this application sent needs fixing.</p>` : html`<table class="findings">
      <thead><tr><th>severity</th><th>finding</th><th>count</th><th>first / last</th></tr></thead>
      <tbody>${r.findings.map((f) => html`<tr>
        <td><span class=${`badge ${f.severity}`}>${f.severity}</span></td>
        <td><div><code>${f.id}</code> ${f.message}</div><div class="muted">fix: ${f.advice}</div></td>
        <td class="num">${f.count}</td>
        <td class="small">${f.first.method} ${f.first.path}<br />${time(f.first.at)} (${f.first.reqId})<br />last ${time(f.last.at)}</td>
      </tr>`)}</tbody>
    </table>`}
    <div class="columns">
      <div><h3>Booking steps</h3><${Checks} items=${r.coverage.steps} /></div>
      <div><h3>Error paths met</h3><${Checks} items=${r.coverage.error_paths} /></div>
    </div>
  </section>`;
}

function Certification({ data, application, act }) {
  const runs = data.runs ?? [];
  const run = data.run;
  const [certificate, setCertificate] = useState(null);
  useEffect(() => setCertificate(null), [run?.id]);
  const start = () => act(() => api('POST', 'certifications', { application }));
  const end = () => act(() => api('DELETE', `certifications/${encodeURIComponent(run.id)}${q({ application })}`));
  const show = () => act(async () => setCertificate(await api('GET', `certifications/${encodeURIComponent(run.id)}/certificate${q({ application })}`)));
  const title = html`<div class="bar"><h2>Certification${application ? `: ${application}` : ''}</h2>
    ${application && html`<button onClick=${start}>${run?.state === 'running' ? 'Start again' : 'Start a run'}</button>`}
    ${run?.state === 'running' && html`<button onClick=${end}>End run</button>`}
    <span class="muted">the suite's requirements pass as the sandbox sees your client and receiver do them (docs/certification.md)</span></div>`;
  if (!application) {
    return html`<section>${title}<p class="muted">Choose an application above to start a run or follow its checklist.</p>
      ${runs.length > 0 && html`<table><thead><tr><th>run</th><th>application</th><th>state</th><th>passed</th><th>started</th></tr></thead>
        <tbody>${runs.map((r) => html`<tr><td><code>${r.id}</code></td><td>${r.application}</td><td><span class=${`badge run-${r.state}`}>${r.state}</span></td><td class="num">${r.passed} / ${r.total}</td><td class="nowrap">${time(r.started_at)}</td></tr>`)}</tbody></table>`}
    </section>`;
  }
  if (!run) return html`<section>${title}<p class="muted">No run yet for ${application}.</p></section>`;
  return html`<section>
    ${title}
    <p><code>${run.id}</code> <span class=${`badge run-${run.state}`}>${run.state}</span> ${run.passed} of ${run.total} passed, started ${time(run.started_at)}${run.api_version ? `, API version ${run.api_version}` : ''}
      ${run.state === 'passed' && html` <button onClick=${show}>Show certificate</button>`}</p>
    ${certificate && html`<pre class="body certificate">${certificate}</pre><a download=${`certificate-${run.application}.jwt`} href=${`data:application/jwt,${encodeURIComponent(certificate)}`}>Download the certificate</a>`}
    <table class="checklist">
      <thead><tr><th>status</th><th>requirement</th><th>evidence, or what it waits for</th></tr></thead>
      <tbody>${run.requirements.map((r) => html`<tr data-requirement=${r.id}>
        <td><span class=${`badge ${r.status}`}>${r.status}</span></td>
        <td><div><code>${r.id}</code> ${r.title}</div><div class="muted small">${r.instructions}</div>
          ${Object.keys(r.setup).length > 0 && html`<div class="small">${Object.entries(r.setup).map(([k, v]) => html`<div><b>${k}</b>: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}</div>`)}</div>`}
          ${r.question && run.state === 'running' && r.status === 'pending' && html`<${Question} run=${run} r=${r} act=${act} />`}</td>
        <td class="small">${r.evidence.length ? html`<ul class="evidence">${r.evidence.map((e) => html`<li><code>${e.id}</code> ${e.what}</li>`)}</ul>` : ''}${r.reason && html`<div class=${r.status === 'failed' ? 'reason failed' : 'reason'}>${r.reason}</div>`}</td>
      </tr>`)}</tbody>
    </table>
  </section>`;
}

/** A requirement's question as a form: the answer is checked against the sandbox's state. */
function Question({ run, r, act }) {
  const [answer, setAnswer] = useState('');
  const submit = (e) => {
    e.preventDefault();
    act(() => api('POST', `certifications/${encodeURIComponent(run.id)}/answers`, { requirement: r.id, answer, application: run.application }));
  };
  return html`<form class="question" onSubmit=${submit}><label>${r.question.ask} <input value=${answer} onInput=${(e) => setAnswer(e.target.value)} aria-label=${`Answer for ${r.id}`} /></label><button type="submit">Answer</button></form>`;
}

function Checks({ items }) {
  return html`<ul class="checks">${items.map((s) => html`<li class=${s.done ? 'done' : ''}>${s.done ? '✔' : '○'} ${s.name}${s.count ? ` (${s.count})` : ''}</li>`)}</ul>`;
}

render(html`<${App} />`, document.getElementById('app'));
