-- Documents, transcripts and media on top of the Knowledge Hub (docs/ingestion.md).

-- Token count of a version (o200k_base), filled when the version is written by the ingest tools and
-- lazily by get_version_history for versions written elsewhere; origin says which path wrote it.
alter table kb_versions add column if not exists tokens integer;
alter table kb_versions add column if not exists origin text;

-- A transcript version: its source format and where it sits on the wall clock.
create table kb_transcripts (
  version_id uuid primary key references kb_versions(id) on delete cascade,
  item_id uuid not null references kb_items(id) on delete cascade,
  format text not null check (format in ('vtt', 'srt', 'speaker_text')),
  recorded_at timestamptz not null,
  duration_ms bigint not null,
  segment_count integer not null,
  timing text not null default 'source' check (timing in ('source', 'estimated'))
);
create index kb_transcripts_item_idx on kb_transcripts (item_id);

-- Timestamped segments of a transcript version (offsets from the start of the recording).
create table kb_segments (
  version_id uuid not null references kb_versions(id) on delete cascade,
  item_id uuid not null references kb_items(id) on delete cascade,
  ordinal integer not null,
  start_ms bigint not null,
  end_ms bigint not null,
  speaker text,
  text text not null,
  primary key (version_id, ordinal)
);
create index kb_segments_item_idx on kb_segments (item_id);
