-- Connector feeds (docs/web-and-connectors.md): a source (RSS/Atom feed, XML sitemap, local folder)
-- whose items are ingested into the owner's project Knowledge Hub, on demand or on a schedule.
create table connector_feeds (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects(id) on delete cascade,
  owner_id uuid not null references users(id) on delete cascade,
  created_by_key_id text,
  type text not null check (type in ('rss', 'sitemap', 'folder')),
  name text not null,
  source text not null,
  max_items integer not null,
  schedule_seconds integer,
  next_sync_at timestamptz,
  status text not null default 'idle' check (status in ('idle', 'syncing', 'error')),
  lease_until timestamptz,
  last_synced_at timestamptz,
  last_error text,
  last_result jsonb,
  sync_count integer not null default 0,
  etag text,
  last_modified text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index connector_feeds_owner_idx on connector_feeds (project_id, owner_id, created_at desc);
create index connector_feeds_due_idx on connector_feeds (next_sync_at) where schedule_seconds is not null;

-- What each feed last ingested, per item: an item whose content hash (or sitemap lastmod) is unchanged is skipped.
create table connector_items (
  feed_id uuid not null references connector_feeds(id) on delete cascade,
  item_key text not null,
  content_hash text not null,
  lastmod text,
  kb_item_id uuid,
  updated_at timestamptz not null default now(),
  primary key (feed_id, item_key)
);
