-- Code intelligence: a project's repository index. Each file's analysis (definitions, imports,
-- identifiers and calls per definition, from the tree-sitter engine) is stored as the JSON the
-- index thread reads, so a restart rebuilds the in-memory graph from here without parsing.
create table code_index_state (
  project_id uuid primary key references projects(id) on delete cascade,
  generation bigint not null default 0,
  updated_at timestamptz not null default now()
);

create table code_files (
  project_id uuid not null references projects(id) on delete cascade,
  path text not null,
  content_hash text not null,
  language text not null,
  parser text not null,
  bytes integer not null,
  units integer not null,
  parse_errors integer not null default 0,
  analysis text not null,
  generation bigint not null,
  updated_at timestamptz not null default now(),
  primary key (project_id, path)
);
