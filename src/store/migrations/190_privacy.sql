-- Issue 45: no secret in the clear.

-- Whether the account's usage events keep an input preview (the first line, at most 100 characters,
-- credentials redacted: src/lib/redactSecrets.ts). Off: no preview is kept at all.
alter table users add column store_input_previews boolean not null default true;

-- user_webhooks.secret holds the signing secret sealed (AES-256-GCM, src/domain/federation/webhookSecrets.ts):
-- "sealed:<key>:<box>". A plain "whsec_" value left by an earlier version is sealed at the next start.
comment on column user_webhooks.secret is 'sealed signing secret (sealed:<key>:<AES-256-GCM box>), never plain text';
