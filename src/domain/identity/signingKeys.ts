import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Db } from '../../store/db.js';

export interface SigningKey {
  kid: string;
  publicJwk: JWK;
  privateKey: CryptoKey;
}

const cache = new WeakMap<Db, Promise<SigningKey[]>>();

/** The service's Ed25519 signing keys, created on first use and kept in the database. */
export function signingKeys(db: Db): Promise<SigningKey[]> {
  let keys = cache.get(db);
  if (!keys) {
    keys = loadOrCreate(db).catch((err) => {
      cache.delete(db);
      throw err;
    });
    cache.set(db, keys);
  }
  return keys;
}

async function loadOrCreate(db: Db): Promise<SigningKey[]> {
  const rows = await db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock(727002)');
    const existing = await tx.query<{ kid: string; public_jwk: JWK; private_jwk: JWK }>(
      'select kid, public_jwk, private_jwk from signing_keys where active order by created_at',
    );
    if (existing.length) return existing;
    const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const privateJwk = await exportJWK(privateKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    await tx.query('insert into signing_keys (kid, public_jwk, private_jwk) values ($1, $2::text::jsonb, $3::text::jsonb)', [
      kid, JSON.stringify(publicJwk), JSON.stringify(privateJwk),
    ]);
    return [{ kid, public_jwk: publicJwk, private_jwk: privateJwk }];
  });
  return Promise.all(
    rows.map(async (r) => ({
      kid: r.kid,
      publicJwk: { ...r.public_jwk, kid: r.kid, alg: 'EdDSA', use: 'sig' },
      privateKey: (await importJWK(r.private_jwk, 'EdDSA')) as CryptoKey,
    })),
  );
}
