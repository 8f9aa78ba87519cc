/** One write's rows: fields replaced whole tombstone their entries; upserts and tombstones. */
const ROWS = `with gone as (
      update mock_records set value = null, version = $2 where app = $1 and field = any($3::text[]) and value is not null
    ), up as (
      insert into mock_records (app, field, key, value, version)
      select $1, u.f, u.k, u.v::json, $2 from unnest($4::text[], $5::text[], $6::text[]) as u(f, k, v)
      on conflict (app, field, key) do update set value = excluded.value, version = excluded.version
    )`;
/** The tenant's version, last in a write's statement. */
const BUMP = 'update mock_tenants set version = $2 where app = $1';

/** The statements the PostgreSQL store runs (tables: schema.ts). */
export const SQL = {
  /** A tenant's versions and the server state's version: what a sync reads when nothing changed. */
  versions: `select t.version, t.born, t.pruned_version, (select version from mock_server where id = 1) as server_version
    from (select 1) one left join mock_tenants t on t.app = $1`,
  allVersions: 'select app, version, born, pruned_version from mock_tenants',
  serverVersion: 'select version from mock_server where id = 1',
  server: 'select doc, version from mock_server where id = 1',
  /**
   * The tenant row and its rows newer than $2, in one snapshot, in version order; within a version,
   * entries before whole fields (a field replaced whole tombstones its old entries in the same
   * version). Live rows only for a whole load ($2 = 0).
   */
  since: `select t.version as tv, t.born, t.pruned_version, r.field, r.key, r.value, r.version
    from mock_tenants t left join mock_records r on r.app = t.app and r.version > $2 and (r.value is not null or $2 > 0)
    where t.app = $1 order by r.version, r.field = ''`,
  /** BEGIN, then the tenant's row (created if need be) locked, with the version this write will have. */
  lock: (app: string) =>
    `BEGIN; insert into mock_tenants (app, version, born) values (${app}, 0, nextval('mock_version')) on conflict (app) do nothing;
     select version, born, pruned_version, nextval('mock_version') as next from mock_tenants where app = ${app} for update`,
  /** One write's rows: fields replaced whole tombstone their entries; upserts and tombstones; the tenant's version. */
  write: `${ROWS}
    ${BUMP}`,
  /**
   * The same, with the write's due rows ($7 kinds, $8 keys, $9 due times, null: the row goes; $10
   * chains, $11 ranks): in the same statement, so they commit with the records. A row written
   * again keeps its lease: a write that merely read the record (update() writes what it reads) must
   * not free work another instance is doing; the holder gives it back with its outcome (due.ts).
   */
  writeDue: `${ROWS}, due_gone as (
      delete from mock_due m using unnest($7::text[], $8::text[], $9::bigint[]) as u(kind, key, at)
      where u.at is null and m.app = $1 and m.kind = u.kind and m.key = u.key
    ), due_up as (
      insert into mock_due (app, kind, key, due_at, chain, rank)
      select $1, u.kind, u.key, u.at, u.chain, u.rank::numeric from unnest($7::text[], $8::text[], $9::bigint[], $10::text[], $11::text[]) as u(kind, key, at, chain, rank)
      where u.at is not null
      on conflict (app, kind, key) do update set due_at = excluded.due_at, chain = excluded.chain, rank = excluded.rank
    )
    ${BUMP}`,
  /** Drops the tombstones up to the previous prune's mark (older caches then reload whole), and sets the next mark. */
  prune: `with d as (
      delete from mock_records where app = $1 and value is null and version <= (select prune_mark from mock_tenants where app = $1) returning version
    )
    update mock_tenants set pruned_version = greatest(pruned_version, coalesce((select max(version) from d), 0)), prune_mark = $2 where app = $1`,
  lockServer: "select doc, version, nextval('mock_version') as next from mock_server where id = 1 for update",
  writeServer: 'update mock_server set doc = $1, version = $2 where id = 1',
  /** The cached tenants' births: one that differs (or is gone) was reset. */
  births: 'select app, born from mock_tenants where app = any($1)',
};
