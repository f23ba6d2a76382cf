-- Commerce and governance: referrals, leads, licenses, metering, billing cache, payments, outbox, audit.

-- One stable referral code per user.
create table referral_codes (
  user_id uuid primary key references users(id) on delete cascade,
  code text not null unique,
  created_at timestamptz not null default now()
);

-- A referred user is claimed at most once (unique referred_id); self-referral is refused in code.
create table referrals (
  id uuid primary key default gen_random_uuid(),
  referrer_id uuid not null references users(id) on delete cascade,
  referred_id uuid not null unique references users(id) on delete cascade,
  code text not null,
  source text not null check (source in ('manual', 'webhook')),
  created_at timestamptz not null default now()
);
create index referrals_referrer_idx on referrals (referrer_id, created_at desc);

create table leads (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references users(id) on delete set null,
  email text not null,
  name text,
  company text,
  message text,
  plan_interest text,
  source text,
  created_at timestamptz not null default now()
);

-- Self-hosted licenses; only the SHA-256 of the signed token is kept.
create table licenses (
  id uuid primary key,
  user_id uuid not null references users(id) on delete cascade,
  customer_email text not null,
  customer_name text,
  plan text not null,
  seats integer not null,
  kid text not null,
  token_sha256 text not null unique,
  status text not null default 'active' check (status in ('active', 'revoked')),
  issued_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index licenses_user_idx on licenses (user_id, issued_at desc);

-- Usage reports from self-hosted instances: one per license, period and instance (idempotent).
create table metering_reports (
  id uuid primary key default gen_random_uuid(),
  license_id uuid not null references licenses(id) on delete cascade,
  user_id uuid not null references users(id) on delete cascade,
  period text not null,
  instance_id text not null default 'default',
  compressions integer not null,
  tokens_saved bigint not null default 0,
  created_at timestamptz not null default now(),
  unique (license_id, period, instance_id)
);
create index metering_reports_user_period_idx on metering_reports (user_id, period);

-- Transactional outbox: a sender drains due rows, retrying with back-off.
create table outbox (
  id uuid primary key default gen_random_uuid(),
  kind text not null,
  payload jsonb not null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'dead')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_error text,
  created_at timestamptz not null default now(),
  delivered_at timestamptz
);
create index outbox_due_idx on outbox (next_attempt_at) where status = 'pending';

-- What the local e-mail provider "sent" (the default when SMTP_URL is unset).
create table email_deliveries (
  id uuid primary key default gen_random_uuid(),
  outbox_id uuid unique,
  recipient text not null,
  subject text not null,
  body text not null,
  created_at timestamptz not null default now()
);

-- Last meter reading per user and period: served while the billing provider's breaker is open.
create table billing_meter_cache (
  user_id uuid not null references users(id) on delete cascade,
  period_start timestamptz not null,
  count bigint not null,
  fetched_at timestamptz not null default now(),
  primary key (user_id, period_start)
);

-- Totals already pushed to the provider's meter, so each sync sends only the delta.
create table billing_meter_sync (
  user_id uuid not null references users(id) on delete cascade,
  period_start timestamptz not null,
  reported bigint not null default 0,
  updated_at timestamptz not null default now(),
  primary key (user_id, period_start)
);

-- Provider webhook events already applied (idempotency across retries).
create table webhook_events (
  provider text not null,
  event_id text not null,
  received_at timestamptz not null default now(),
  primary key (provider, event_id)
);

-- Charge events from payment-signature headers, billed asynchronously by the facilitator.
create table payment_events (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  project_id uuid,
  facilitator text not null,
  settlement_status text not null default 'pending',
  payment_id text not null,
  amount_charged_micros bigint not null,
  tokens_saved integer not null default 0,
  created_at timestamptz not null default now(),
  unique (facilitator, payment_id)
);
create index payment_events_user_time_idx on payment_events (user_id, created_at);
create index payment_events_time_idx on payment_events (created_at);

-- Governance audit: who did what to which target, when, with what outcome; never a secret.
create table audit_log (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid references users(id) on delete cascade,
  actor_user_id uuid,
  actor_key_id text,
  actor_via text not null,
  action text not null,
  target_type text,
  target_id text,
  outcome text not null,
  detail jsonb not null default '{}',
  request_id text,
  created_at timestamptz not null default now(),
  -- Insertion order: the embedded database's clock can give two rows the same created_at.
  seq bigint generated always as identity
);
create index audit_log_owner_seq_idx on audit_log (owner_id, seq desc);
