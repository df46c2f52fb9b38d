-- The event store: one append-only log of every event, plus snapshots of long streams.

create table events (
  position       bigserial   primary key,
  -- Readers of the global log order by (transaction_id, position) and stop below the oldest
  -- running transaction, so an event that commits late is never skipped.
  transaction_id xid8        not null default pg_current_xact_id(),
  stream_id      text        not null,
  version        integer     not null check (version >= 1),
  event_id       uuid        not null unique,
  type           text        not null,
  schema_version integer     not null default 1,
  data           jsonb       not null,
  metadata       jsonb       not null default '{}',
  recorded_at    timestamptz not null default clock_timestamp(),
  -- The optimistic-concurrency guard: two appends at the same expected version collide here.
  constraint events_stream_version_unique unique (stream_id, version)
);

create index events_transaction_order on events (transaction_id, position);
create index events_type on events (type);

-- History is never rewritten: the database itself refuses changes, whoever asks.
create function events_refuse_change() returns trigger
language plpgsql as $$
begin
  raise exception 'events are append-only' using errcode = 'restrict_violation';
end
$$;

create trigger events_append_only
  before update or delete on events
  for each row execute function events_refuse_change();

create trigger events_no_truncate
  before truncate on events
  for each statement execute function events_refuse_change();

create table snapshots (
  stream_id text        primary key,
  version   integer     not null,
  state     jsonb       not null,
  taken_at  timestamptz not null default now()
);
