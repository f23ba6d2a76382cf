-- Navigable elision markers (docs/markers.md): what expands a marker id `<ref>.<n>` back to the exact
-- text it hides. Written off the request path; kept MARKER_RETENTION_DAYS after last use, and at most
-- MARKER_MAX_BYTES of originals per owner (src/domain/compression/markerStore.ts).

-- An original, once per owner and content (sha256 of the text, hex).
create table marker_texts (
  user_id uuid not null references users(id) on delete cascade,
  text_hash text not null,
  content text not null,
  bytes integer not null,
  created_at timestamptz not null default now(),
  used_at timestamptz not null default now(),
  primary key (user_id, text_hash)
);
create index marker_texts_used_idx on marker_texts (used_at);

-- One output's markers: the hidden spans of the original, "start,end,start,end,…" (UTF-16 offsets).
create table marker_refs (
  user_id uuid not null,
  ref text not null,
  text_hash text not null,
  spans text not null,
  created_at timestamptz not null default now(),
  primary key (user_id, ref),
  foreign key (user_id, text_hash) references marker_texts (user_id, text_hash) on delete cascade
);
create index marker_refs_text_idx on marker_refs (user_id, text_hash);
