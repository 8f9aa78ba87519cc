import type pg from 'pg';
import { StoreError } from '../types.js';

/** The first key of the advisory locks of presence.ts (the second: 0 for the registry, else an instance's id hashed). */
export const PRESENCE_LOCK = 0x6d6f636b; // 'mock'

/**
 * The tables, as numbered migrations: migration i brings the schema to version i + 1. A migration
 * is only ever added, never edited: a database remembers which ones it ran (mock_schema_version).
 *
 * - mock_tenants: one row per application that has state; its lock row (update() holds it FOR
 *   UPDATE) and its version. Versions come from one sequence, so they only grow, also across a
 *   reset that deletes the row: `born` (the version its row was created at) tells a cache that the
 *   application it holds was reset meanwhile. `pruned_version`: tombstones up to it were deleted,
 *   so a cache older than it reloads the tenant whole; `prune_mark`: where the next prune stops.
 * - mock_records: the tenant, one row per collection entry (field = collection, key = entry key),
 *   and one row per tenant field replaced whole (field '' , key = the field's name: no tenant field
 *   is named ''; the applications' clock offsets, rows ('', 'clock_offset_ms'), have an index of their
 *   own, schema 5, for the bound of a due claim). value NULL is a tombstone (the entry or field was deleted), kept until pruned so
 *   that a cache can catch up with `version > cached`. Values are `json`, not `jsonb`: nothing
 *   queries into them, json is cheaper to write, and it keeps what jsonb refuses (\u0000 in a string).
 * - mock_server: the server-wide state, one row.
 * - mock_due (schema 2): work that falls due, one row per due record (a pending webhook delivery, a
 *   running scenario), written in the same statement as the record; `due_at` is on the
 *   application's clock (ms), so that moving its clock needs no rewrite. Rows of one `chain` (an
 *   order item's deliveries) are claimed one at a time, lowest `rank` (version, sequence) first.
 *   An instance claims a row by taking its lease (`lease_owner`, `lease_until` on the database's
 *   clock) and a fencing token (`lease_token`, schema 4, from sequence mock_lease); every write of
 *   the claim's outcome names the token, so that an instance whose lease ran out and was taken
 *   over writes nothing. Kind 'window' rows hold when a periodic job (the retention sweep) last
 *   ran, so that it runs on one instance per window.
 * - mock_journal (schema 3; a row per application per batch since schema 9), mock_journal_detail
 *   (its exchanges uncompressed since schema 7), mock_journal_apps: the request journal (journal.ts).
 * - mock_instances and mock_fence (schema 8): the instances on the database (presence.ts).
 * - schema 10: mock_due's pages 60% free, so that changing a lease is a HOT update (see there).
 */
const MIGRATIONS: string[] = [
  `create sequence mock_version;
   create table mock_tenants (
     app text primary key,
     version bigint not null,
     born bigint not null,
     pruned_version bigint not null default 0,
     prune_mark bigint not null default 0
   );
   create table mock_records (
     app text not null,
     field text not null,
     key text not null,
     value json,
     version bigint not null,
     primary key (app, field, key)
   );
   create index mock_records_app_version on mock_records (app, version);
   create table mock_server (id int primary key check (id = 1), doc json not null, version bigint not null);
   insert into mock_server values (1, '{"clock_offset_ms":0}', 0);`,
  `create table mock_due (
     app text not null,
     kind text not null,
     key text not null,
     due_at bigint not null,
     chain text,
     rank numeric,
     lease_owner text,
     lease_until timestamptz,
     primary key (app, kind, key)
   );
   create index mock_due_kind_due on mock_due (kind, due_at);
   create index mock_due_chain on mock_due (app, kind, chain, rank) where chain is not null;
   insert into mock_due (app, kind, key, due_at, chain, rank)
     select app, 'webhook', key, (extract(epoch from (value->>'next_attempt_at')::timestamptz) * 1000)::bigint,
       value->>'order_item_uuid', (value->>'order_item_version')::numeric * 1000000000000 + (value->>'seq')::numeric
     from mock_records where field = 'deliveries' and value is not null and value->>'state' = 'pending' and value->>'next_attempt_at' is not null;
   insert into mock_due (app, kind, key, due_at)
     select app, 'scenario', key, 0 from mock_records where field = 'scenario_runs' and value is not null and value->>'stopped' is null;`,
  // The request journal of every instance (journal.ts): ids in arrival order across instances; the
  // exchanges (headers and bodies) of the latest ones apart, so that trimming them deletes by id;
  // each application's latest id, to drop the least recently active.
  `create sequence mock_journal_id;
   create table mock_journal (
     id bigint primary key,
     app text not null,
     at bigint not null,
     method text not null,
     path text not null,
     status int not null,
     duration_ms real not null,
     req_id text not null
   );
   create index mock_journal_app_id on mock_journal (app, id);
   create table mock_journal_detail (id bigint primary key, request json not null, response json not null);
   create table mock_journal_apps (app text primary key, last bigint not null);
   create index mock_journal_apps_last on mock_journal_apps (last);`,
  // A claim's fencing token (due.ts): a new one from mock_lease at every claim.
  `alter table mock_due add column lease_token bigint;
   create sequence mock_lease;`,
  // The applications' clock offsets, for the bound of a claim's scan (due.ts LEAD).
  `create index mock_records_clock on mock_records (app) include (value) where field = '' and key = 'clock_offset_ms';`,
  // The tombstones alone, for a prune (SQL.prune): through (app, version) it read every live row of
  // the application up to its mark (2,234 buffers a prune in the bench's application of 20,000
  // rows, 17 ms under the application's lock) to find the few to delete.
  `create index mock_records_tombstones on mock_records (app, version) where value is null;`,
  // The journal's exchanges uncompressed: each lives about a second, and compressing them was a
  // quarter of PostgreSQL's CPU for the journal (docs/benchmarks.md, "Catalog reads on PostgreSQL").
  `alter table mock_journal_detail alter column request set storage external, alter column response set storage external;`,
  // The instances on the database (presence.ts): each heartbeat's time, and until when it may have
  // believed itself alone; mock_fence, called in every transaction that writes state, fails once the
  // calling instance's row is gone (it froze or was cut off past the expiry, and another took it away).
  `create table mock_instances (id text primary key, seen timestamptz not null, alone_until timestamptz);
   create function mock_fence(me text) returns void language plpgsql volatile as $fence$
   begin
     perform pg_advisory_xact_lock_shared(${PRESENCE_LOCK}, hashtext(me));
     if not exists (select 1 from mock_instances where id = me) then
       raise exception 'this instance was away past its registration (frozen or cut off from the database); it registers again' using errcode = 'MSF01';
     end if;
   end $fence$;`,
  // The journal a row per application per batch (journal.ts): a row per request, inserted and deleted
  // again within a second, was most of what PostgreSQL did for a catalog read. What the old table
  // held is not carried over (a request log, not state).
  `drop table mock_journal;
   truncate mock_journal_detail, mock_journal_apps;
   create table mock_journal (last bigint primary key, app text not null, n int not null, entries json not null);
   alter table mock_journal alter column entries set storage external;
   create index mock_journal_app_last on mock_journal (app, last);`,
  // 60% of each page of the due table left free: a claim, renewal, release or give-back changes
  // only the lease columns, which no index holds, and with room on the row's page that is a HOT
  // update, which touches no index. On full pages each of those rows went to another page with a
  // new entry in all three indexes. A leased row is larger than a free one (its owner, a UUID):
  // pages half free took 65-73% of 1,000 leases as HOT updates, 60% free 97-100%.
  `alter table mock_due set (fillfactor = 40);`,
];

/** The schema version this mock-server brings a database to. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Taken (for the transaction) by every start that looks at the schema: two starts never migrate at once. */
const MIGRATION_LOCK = 0x6d6f636b; // 'mock'

/** Creates or migrates the tables, in one transaction under an advisory lock. */
export async function migrate(client: pg.ClientBase): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('create table if not exists mock_schema_version (version int not null)');
    const { rows } = await client.query<{ v: number | null }>('select max(version) as v from mock_schema_version');
    const at = rows[0]?.v ?? 0;
    if (at > MIGRATIONS.length) {
      throw new StoreError(`the database's tables are of a newer mock-server (schema version ${at}, this one knows ${MIGRATIONS.length}): upgrade mock-server or use another database`);
    }
    for (let i = at; i < MIGRATIONS.length; i++) await client.query(MIGRATIONS[i] as string);
    if (at < MIGRATIONS.length) {
      await client.query('delete from mock_schema_version');
      await client.query('insert into mock_schema_version values ($1)', [MIGRATIONS.length]);
    }
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
