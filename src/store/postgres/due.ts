import type { Op } from '../changes.js';
import type { DueClaim, DueRow, DueRule, DueTable } from '../types.js';
import { Batched, claimsOf } from './batched.js';
import type { Db } from './db.js';
import { CHANNEL } from './listen.js';

/** An application's own clock offset, as a write keeps it (a tenant field replaced whole). */
const OFFSET = `coalesce((select case when json_typeof(r.value) = 'number' then (r.value::text)::numeric end
  from mock_records r where r.app = d.app and r.field = '' and r.key = 'clock_offset_ms'), 0)`;

/**
 * The largest of the applications' clock offsets, and 0 (an application without one is on the server
 * time; an index of schema 5 holds those rows only): no row due later than the server time plus it is
 * due on any clock, so the (kind, due_at) index bounds a claim's scan to the rows due by then instead
 * of every row of the kind.
 */
const LEAD = `(select greatest(0, max(case when json_typeof(value) = 'number' then (value::text)::numeric end))
  from mock_records where field = '' and key = 'clock_offset_ms')`;

/**
 * The row of mock_due `d` keyed by `app`, `kind` and `key`, as two row comparisons that only the
 * primary key's index serves. As three equalities, a plan made while the table was nearly empty (as
 * it is between bursts, and plans are generic, index.ts) may take the (kind, due_at) index instead,
 * going through every row of the kind for each row looked up: 120 ms to delete a burst's 800. The
 * other such plan, the whole table scanned for each row, is ruled out for every statement (index.ts).
 */
export const keyed = (d: string, app: string, kind: string, key: string): string =>
  `(${d}.app, ${d}.kind, ${d}.key) >= (${app}, ${kind}, ${key}) and (${d}.app, ${d}.kind, ${d}.key) <= (${app}, ${kind}, ${key})`;

export const DUE_SQL = {
  /**
   * The rows of `kind` due now on their application's clock (the server time given plus the
   * application's offset), whose lease is free or ran out, and that come first in their chain (an
   * earlier one, under way or waiting, holds the rest back). Applications take turns: each one's
   * oldest row, then each one's second, and so on, so that one application's backlog does not keep
   * another's work waiting. Rows being claimed by another instance are skipped (locked); the lease
   * is checked again on the locked row. Leases are on the database's clock. Each claim takes a new
   * fencing token: the statements below that act for a claim match its token, not its owner, so an
   * instance whose lease ran out and was claimed again (it was frozen, say) changes nothing. The
   * rows are found again by their ctid, one lookup each: joined on their keys, the plan (generic,
   * made when the table was nearly empty, as it is between bursts) compared every row with every
   * other, 0.8 s to claim 900 of a burst's scenario steps. A row updated since it was ranked has
   * another ctid and is left to the next claim. Each row comes with the version of its record ($6:
   * the rule's field), the write that last made it: a cache that holds that version has it as
   * claimed, and need not read the application first (Store.sync).
   */
  claim: {
    name: 'mock_claim',
    text: `with ranked as (
      select d.ctid as tid, d.due_at, row_number() over (partition by d.app order by d.due_at) as turn from mock_due d
      where d.kind = $1 and d.due_at <= $2::bigint + ${LEAD} and d.due_at <= $2::bigint + ${OFFSET}
        and (d.lease_until is null or d.lease_until < clock_timestamp())
        and (d.chain is null or not exists (select 1 from mock_due e where e.app = d.app and e.kind = d.kind and e.chain = d.chain and e.rank < d.rank))
    ), c as (
      select d.ctid as tid from ranked r join mock_due d on d.ctid = r.tid
      where d.kind = $1 and (d.lease_until is null or d.lease_until < clock_timestamp())
      order by r.turn, r.due_at
      limit $3
      for update of d skip locked
    )
    update mock_due d set lease_owner = $4, lease_until = clock_timestamp() + $5 * interval '1 millisecond', lease_token = nextval('mock_lease')
    from c where d.ctid = c.tid
    returning d.app, d.key, d.lease_token, (select r.version from mock_records r where r.app = d.app and r.field = $6 and r.key = d.key) as version`,
  },
  /** The leases still held (their token unchanged) run on; the rows returned are those. */
  renew: `update mock_due d set lease_until = clock_timestamp() + $2 * interval '1 millisecond'
    from unnest($3::text[], $4::text[], $5::bigint[]) as h(app, key, token)
    where ${keyed('d', 'h.app', '$1', 'h.key')} and d.lease_token = h.token
    returning d.app, d.key`,
  /** Leases given back ($1-$5: app, kind, key, token, the due time or null), those still held; the rows returned are those. */
  release: `update mock_due d set lease_owner = null, lease_until = null, lease_token = null, due_at = coalesce(h.at, d.due_at)
    from unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[]) as h(app, kind, key, token, at)
    where ${keyed('d', 'h.app', 'h.kind', 'h.key')} and d.lease_token = h.token
    returning d.app, d.kind, d.key`,
  drop: `delete from mock_due d using unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) as h(app, kind, key, token)
    where ${keyed('d', 'h.app', 'h.kind', 'h.key')} and d.lease_token = h.token
    returning d.app, d.kind, d.key`,
  /**
   * Inside the transaction of a round that records claimed work's outcome, before its functions run:
   * the leases still held ($1-$4: app, kind, key, token) are given back (and their rows locked until
   * the commit); the rows returned are those.
   */
  giveBack: `update mock_due d set lease_owner = null, lease_until = null, lease_token = null
    from unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) as h(app, kind, key, token)
    where ${keyed('d', 'h.app', 'h.kind', 'h.key')} and d.lease_token = h.token
    returning d.app, d.kind, d.key`,
  releaseAll: 'update mock_due set lease_owner = null, lease_until = null, lease_token = null where lease_owner = $1',
  /** The window's row holds its start plus its length; taken when the last start is a window away (either way: clocks move back too). */
  window: `insert into mock_due (app, kind, key, due_at) values ($1, 'window', $2, $3::bigint + $4::bigint)
    on conflict (app, kind, key) do update set due_at = excluded.due_at
    where abs(mock_due.due_at - $4::bigint - $3::bigint) >= $4::bigint
    returning 1`,
};

/**
 * The due rows of a write (the same transaction as its records, so group commit keeps them
 * atomic): rows made by the rules from the records written, removed with their records, and the
 * claiming, leasing and announcing around them. See DueTable.
 */
export class PostgresDue implements DueTable {
  readonly #rules = new Map<string, DueRule>();
  readonly #written: Array<(rows: DueRow[]) => void> = [];
  readonly #announced: Array<() => void> = [];
  #announcing = false;
  readonly #releases: Batched;
  readonly #drops: Batched;

  constructor(
    private readonly db: Db,
    /** Tells this instance's notifications from the others'. */
    private readonly id: string,
  ) {
    this.#releases = new Batched(db, DUE_SQL.release, (gs) => [...claimsOf(gs), gs.map((g) => g.at)]);
    this.#drops = new Batched(db, DUE_SQL.drop, claimsOf);
  }

  rule(rule: DueRule): void {
    this.#rules.set(rule.field, rule);
  }

  /**
   * The rows a write's operations make, and the kinds whose rows go first (a collection replaced
   * whole). Nothing when no rule applies: the write statement then stays the plain one.
   */
  rowsOf(app: string, ops: Op[]): { rows: DueRow[]; cleared: string[] } {
    const rows: DueRow[] = [];
    const cleared: string[] = [];
    if (this.#rules.size === 0) return { rows, cleared };
    const row = (rule: DueRule, key: string, value: unknown) => {
      const t = value === undefined ? null : rule.due(value);
      rows.push(t ? { app, kind: rule.kind, key, at: t.at, chain: t.chain, rank: t.rank } : { app, kind: rule.kind, key, at: null });
    };
    for (const op of ops) {
      if (op[0] === 'k' || op[0] === 'dk') {
        const rule = this.#rules.get(op[2]);
        if (rule) row(rule, op[3], op[0] === 'k' ? op[4] : undefined);
      } else if (op[0] === 'f' || op[0] === 'df') {
        const rule = this.#rules.get(op[2]);
        if (!rule) continue;
        cleared.push(rule.kind);
        const all = op[0] === 'f' && op[3] !== null && typeof op[3] === 'object' ? (op[3] as Record<string, unknown>) : {};
        for (const [key, value] of Object.entries(all)) row(rule, key, value);
      }
    }
    return { rows: rows.filter((r) => r.at !== null || !cleared.includes(r.kind)), cleared };
  }

  /** The write statement's parameters for `rows` ($10-$15 of mock_write, sql.ts). */
  params(rows: DueRow[]): unknown[][] {
    return [
      rows.map((r) => r.app),
      rows.map((r) => r.kind),
      rows.map((r) => r.key),
      rows.map((r) => (r.at === null ? null : Math.round(r.at))),
      rows.map((r) => r.chain ?? null),
      rows.map((r) => (r.rank === undefined ? null : r.rank.toString())),
    ];
  }

  /** After the commit of a write that had due rows. */
  committed(rows: DueRow[]): void {
    for (const l of this.#written) l(rows);
  }

  async claim(kind: string, owner: string, now: number, leaseMs: number, limit: number): Promise<DueClaim[]> {
    const field = [...this.#rules.values()].find((r) => r.kind === kind)?.field ?? '';
    const { rows } = await this.db.query(DUE_SQL.claim, [kind, Math.floor(now), limit, owner, leaseMs, field]);
    return rows.map((r) => ({ application: r.app as string, key: r.key as string, token: String(r.lease_token), ...(r.version === null ? {} : { version: Number(r.version) }) }));
  }

  async renew(kind: string, held: DueClaim[], leaseMs: number): Promise<DueClaim[]> {
    if (held.length === 0) return [];
    const { rows } = await this.db.query(DUE_SQL.renew, [kind, leaseMs, held.map((c) => c.application), held.map((c) => c.key), held.map((c) => c.token)]);
    const renewed = new Set(rows.map((r) => `${r.app}\u0000${r.key}`));
    return held.filter((c) => renewed.has(`${c.application}\u0000${c.key}`));
  }

  release(kind: string, claim: DueClaim, at?: number): Promise<boolean> {
    return this.#releases.add({ kind, claim, at: at === undefined ? null : Math.round(at) });
  }

  drop(kind: string, claim: DueClaim): Promise<boolean> {
    return this.#drops.add({ kind, claim, at: null });
  }

  async releaseAll(owner: string): Promise<void> {
    await this.db.query(DUE_SQL.releaseAll, [owner]);
  }

  async window(application: string, key: string, now: number, everyMs: number): Promise<boolean> {
    const { rowCount } = await this.db.query(DUE_SQL.window, [application, key, Math.floor(now), everyMs]);
    return rowCount === 1;
  }

  onWritten(listener: (rows: DueRow[]) => void): void {
    this.#written.push(listener);
  }

  onAnnounced(listener: () => void): void {
    this.#announced.push(listener);
  }

  /** A notification of another instance's (payload {i, d}); this instance's own are ignored. */
  heard(from: string): void {
    if (from !== this.id) for (const l of this.#announced) l();
  }

  /** One NOTIFY for every call within 5 ms, after the commits that made the work (never inside them). */
  announce(): void {
    if (this.#announcing) return;
    this.#announcing = true;
    setTimeout(() => {
      this.#announcing = false;
      void this.db.query('select pg_notify($1, $2)', [CHANNEL, JSON.stringify({ i: this.id, d: true })]).catch(() => undefined);
    }, 5).unref();
  }
}
