import { DUE_SQL, keyed } from './due.js';

/**
 * Where applications stand and what changed since a cache's version: for each of the arrays' apps
 * ($a), cached at version $v and born $b (0, 0: not cached), its tenant row and its rows newer than
 * the cache, or all its live rows when the cache is of an earlier birth (reset meanwhile), pruned
 * past, or absent. Within an application in version order, and within a version entries before whole
 * fields (a field replaced whole tombstones its old entries in the same version). An application
 * without state has no row. A first row (app null) gives the server state's version. One snapshot.
 * The rows are read per application with its version as a bound of the (app, version) index scan:
 * a plain join (or a lateral subquery the planner pulls up, which `offset 0` prevents) bounds the
 * scan by the application alone and filters on the version after, reading every row it has (all
 * 20,000 of the bench's application for each read, which tripled PostgreSQL's CPU per booking).
 */
const since = (a: string, v: string, b: string) => `with c as (select * from unnest(${a}, ${v}, ${b}) as c(a, v, b)),
    t as (select m.app, m.version, m.born, m.pruned_version, case when m.born = c.b and m.pruned_version <= c.v then c.v else 0 end as since
      from c join mock_tenants m on m.app = c.a)
  select * from (select null::text as app, s.version as tv, null::bigint as born, null::bigint as pruned_version, null::bigint as since, null::text as field, null::text as key, null::json as value, null::bigint as rv
    from mock_server s where s.id = 1
  union all
  select t.app, t.version, t.born, t.pruned_version, t.since, r.field, r.key, r.value, r.version
    from t left join lateral (
      select * from mock_records r where r.app = t.app and r.version > t.since and (r.value is not null or t.since > 0) offset 0
    ) r on true
  ) x order by app nulls first, rv, field = ''`;

/** A text[] or bigint[] literal of `values` (strings escaped by `literal`; null stays null). */
export const arrayOf = (values: Array<string | number | null>, type: 'text' | 'bigint', literal: (s: string) => string): string =>
  `array[${values.map((v) => (v === null ? 'null' : type === 'text' ? literal(String(v)) : String(Math.trunc(Number(v))))).join(',')}]::${type}[]`;

/**
 * The writes of a round, every application's in one statement. $1-$3: the applications (in name
 * order), the version and birth each update's tenant was at; each application's row is locked, and
 * written only when it still is at that version and birth: its version then moves to a new one,
 * and everything else the application writes joins it (`t`), so an application found newer writes
 * nothing (the writer runs its updates again, on the tenant brought up to date: writer.ts). A round
 * that locked and read its applications first (the writer's second round trip) always finds them so.
 * Then: fields replaced whole tombstone their entries; rows upserted or tombstoned; the due rows of
 * the records written (they commit together). $4, $5 the fields replaced whole (app, field);
 * $6-$9 the rows (app, field, key, JSON value or null); $10-$15 due rows (app, kind, key, due time
 * or null: the row goes, chain, rank); $16, $17 due kinds replaced whole (app, kind): their other
 * rows go; $18 applications whose row the round created and that wrote nothing: their row goes. A
 * due row written again keeps its lease: a write that merely read the record (update() writes what
 * it reads) must not free work another instance is doing; the holder gives it back with its outcome
 * (due.ts). It answers the server state's version (app null), read after the round's locks, and
 * each application written with its new version.
 */
const locked = `with c as (select * from unnest($1::text[], $2::bigint[], $3::bigint[]) as c(a, v, b)),
      l as (select m.app from mock_tenants m join c on c.a = m.app order by m.app for update of m),
      t as (
        update mock_tenants m set version = nextval('mock_version') from l join c on c.a = l.app
        where m.app = l.app and m.version = c.v and m.born = c.b returning m.app as a, m.version as v
      ), up as (
        insert into mock_records (app, field, key, value, version)
        select u.a, u.f, u.k, u.v::json, t.v from unnest($6::text[], $7::text[], $8::text[], $9::text[]) as u(a, f, k, v) join t on t.a = u.a
        on conflict (app, field, key) do update set value = excluded.value, version = excluded.version
      )`;
const answer = `select null::text as app, version from mock_server where id = 1
      union all select a, v from t`;
const write = `${locked}, gone as (
        update mock_records r set value = null, version = t.v from unnest($4::text[], $5::text[]) as g(a, f) join t on t.a = g.a
        where r.app = g.a and r.field = g.f and r.value is not null
      ), n as (
        select n.* from unnest($10::text[], $11::text[], $12::text[], $13::bigint[], $14::text[], $15::text[]) as n(a, kind, key, at, chain, rank) join t on t.a = n.a
      ), cleared as (
        delete from mock_due m using unnest($16::text[], $17::text[]) as x(a, kind) join t on t.a = x.a
        where m.app = x.a and m.kind = x.kind and not exists (select 1 from n where n.a = m.app and n.kind = m.kind and n.key = m.key and n.at is not null)
      ), due_gone as (
        delete from mock_due m using n where n.at is null and ${keyed('m', 'n.a', 'n.kind', 'n.key')}
      ), due_up as (
        insert into mock_due (app, kind, key, due_at, chain, rank)
        select n.a, n.kind, n.key, n.at, n.chain, n.rank::numeric from n where n.at is not null
        on conflict (app, kind, key) do update set due_at = excluded.due_at, chain = excluded.chain, rank = excluded.rank
      ), emptied as (
        delete from mock_tenants where app = any($18::text[])
      )
      ${answer}`;

/**
 * write for a round that only writes rows ($4, $5 and $10-$18 empty: most of a booking): the same
 * parameters, without the statements that would find nothing to do. Each of those still opened its
 * table and indexes and ran at every round; without them a booking costs PostgreSQL a tenth less
 * CPU (docs/benchmarks.md, eleventh section).
 */
const writeRows = `${locked}
      ${answer}`;

/** The types of write's parameters, in order. */
export const WRITE_TYPES = ['text', 'bigint', 'bigint', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'bigint', 'text', 'text', 'text', 'text', 'text'] as const;

/**
 * The statements of a round that writes, prepared once per connection (Db.prepare) and run with
 * EXECUTE in the round's texts: several of them go in one round trip (the simple protocol, which
 * takes no parameters), each planned once per connection (plan_cache_mode, index.ts) rather than at
 * every round. A round starts with BEGIN, mock_create (the applications' rows created if need be,
 * in name order, as every instance takes them: no deadlock), mock_lock (locked in name order), then
 * mock_since: what changed, read after the locks in a snapshot of its own; mock_give_back (due.ts)
 * when it records claimed work's outcome. It ends with mock_write and COMMIT, in one round trip. A
 * round whose cached tenants are likely current sends mock_write alone (writer.ts).
 */
export const ROUND_STATEMENTS = [
  `PREPARE mock_create(text[]) AS insert into mock_tenants (app, version, born) select a, 0, nextval('mock_version') from unnest($1) a order by a on conflict (app) do nothing returning app`,
  `PREPARE mock_lock(text[]) AS select app from mock_tenants where app = any($1) order by app for update`,
  `PREPARE mock_since(text[], bigint[], bigint[]) AS ${since('$1', '$2', '$3')}`,
  `PREPARE mock_give_back(text[], text[], text[], bigint[]) AS ${DUE_SQL.giveBack}`,
  `PREPARE mock_write(${WRITE_TYPES.map((t) => `${t}[]`).join(', ')}) AS ${write}`,
  `PREPARE mock_write_rows(${WRITE_TYPES.map((t) => `${t}[]`).join(', ')}) AS ${writeRows}`,
].join(';\n');

/** The statements the PostgreSQL store runs (tables: schema.ts). */
export const SQL = {
  /** since() as a prepared statement: a round that only reads (rounds.ts). */
  check: { name: 'mock_check', text: since('$1::text[]', '$2::bigint[]', '$3::bigint[]') },
  allVersions: 'select app, version, born from mock_tenants',
  server: 'select doc, version from mock_server where id = 1',
  /**
   * Drops an application's tombstones up to the previous prune's mark (older caches then reload
   * whole), and sets the next mark; its row locked first, as a round takes it.
   */
  prune: (app: string) => `BEGIN; select 1 from mock_tenants where app = ${app} for update; ${SQL.pruned(app)}; COMMIT`,
  /** prune's statement, which finds the tombstones through their own index (schema 6). */
  pruned: (app: string) => `with d as (
      delete from mock_records where app = ${app} and value is null and version <= (select prune_mark from mock_tenants where app = ${app}) returning version
    )
    update mock_tenants set pruned_version = greatest(pruned_version, coalesce((select max(version) from d), 0)), prune_mark = version where app = ${app}`,
  lockServer: "select doc, version, nextval('mock_version') as next from mock_server where id = 1 for update",
  writeServer: 'update mock_server set doc = $1, version = $2 where id = 1',
  /** The cached tenants' births: one that differs (or is gone) was reset. */
  births: 'select app, born from mock_tenants where app = any($1)',
};
