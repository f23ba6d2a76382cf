-- One-off maintenance passes the service runs at start, each recorded once done (by name), so a pass
-- over a large table runs once per database, not at every start. First: redacting usage previews
-- stored before previews were redacted (src/domain/accounts/previewRedaction.ts).
create table maintenance_done (
  name text primary key,
  done_at timestamptz not null default now()
);
