-- Ed25519 keys for A2A JWS (share manifests, task proofs); created once, public halves published as JWKS.
create table signing_keys (
  kid text primary key,
  public_jwk jsonb not null,
  private_jwk jsonb not null,
  active boolean not null default true,
  created_at timestamptz not null default now()
);
