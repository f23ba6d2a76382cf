-- Issue 21 (second part): community skills and posts (docs/skills.md).

-- A skill is authored as a private draft of its owner; a moderator (an admin) publishes it. The scan
-- verdict of the text as stored is kept with it: enabling checks this persisted verdict.
create table community_skills (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null references users(id) on delete cascade,
  name text not null,
  tagline text not null,
  category text not null,
  body text not null,
  install_snippet text,
  status text not null default 'draft' check (status in ('draft', 'published')),
  visibility text not null default 'private' check (visibility in ('private', 'published')),
  scan_score real not null,
  scan_verdict text not null check (scan_verdict in ('SAFE', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL')),
  scan_findings jsonb not null default '[]',
  scanner_version text not null,
  published_at timestamptz,
  published_by uuid references users(id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index community_skills_owner_idx on community_skills (owner_id, created_at desc, id);
create index community_skills_published_idx on community_skills (visibility, created_at desc, id);

-- Which skills each user has enabled; disabling deletes the row.
create table community_skill_enablements (
  user_id uuid not null references users(id) on delete cascade,
  skill_id uuid not null references community_skills(id) on delete cascade,
  enabled_at timestamptz not null default now(),
  primary key (user_id, skill_id)
);

-- A post is always a draft when published by its author; it reaches the feed only once a moderator
-- approves it (status approved); rejected posts stay out of the feed.
create table community_posts (
  id uuid primary key default gen_random_uuid(),
  author_id uuid not null references users(id) on delete cascade,
  slug text not null unique,
  title text not null,
  body text not null,
  status text not null default 'draft' check (status in ('draft', 'approved', 'rejected')),
  moderated_by uuid references users(id) on delete set null,
  moderated_at timestamptz,
  moderation_note text,
  created_at timestamptz not null default now()
);
create index community_posts_feed_idx on community_posts (status, moderated_at desc, id);
create index community_posts_author_idx on community_posts (author_id, created_at desc);
