import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { startApp, type RunningApp } from '../../src/app.js';
import type { Plan } from '../../src/auth/plans.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createUser } from '../../src/domain/identity/users.js';
import { createLogger } from '../../src/lib/log.js';
import type { TestServer } from '../helpers/server.js';

/** A second (third, …) account on the server's database, with one key. */
export async function makeUser(server: TestServer, plan: Plan = 'pro', options: { isAdmin?: boolean } = {}) {
  const db = server.app.services.db;
  const user = await createUser(db, { plan, isAdmin: options.isAdmin, name: `user-${plan}` });
  const { key, row } = await createApiKey(db, { userId: user.id, plan, name: 'first' });
  return { userId: user.id, key, keyId: row.key_id };
}

export async function ownerId(server: TestServer): Promise<string> {
  const [row] = await server.app.services.db.query<{ id: string }>('select id from users where is_admin order by created_at limit 1');
  return row!.id;
}

/** A local identity provider: an RSA key pair and its JWKS served over a real socket. */
export interface TestIdp {
  jwksUrl: string;
  jwks: { keys: JWK[] };
  issuer: string;
  audience: string;
  sign(claims: Record<string, unknown>, options?: { sub?: string; expiresIn?: string | number; issuer?: string; audience?: string; key?: CryptoKey; kid?: string }): Promise<string>;
  /** A key the JWKS does not contain (for "wrong key"). */
  strangerKey: CryptoKey;
  close(): Promise<void>;
}

export async function startIdp(): Promise<TestIdp> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const stranger = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  const jwks = { keys: [jwk] };
  const server: Server = createServer((req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(jwks));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = 'https://idp.test/';
  const audience = 'gc-api';
  return {
    jwksUrl: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    jwks,
    issuer,
    audience,
    strangerKey: stranger.privateKey,
    async sign(claims, o = {}) {
      let jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: o.kid ?? 'test-key-1' })
        .setIssuedAt()
        .setIssuer(o.issuer ?? issuer)
        .setAudience(o.audience ?? audience)
        .setSubject(o.sub ?? 'user-1');
      jwt = typeof o.expiresIn === 'number' ? jwt.setExpirationTime(o.expiresIn) : jwt.setExpirationTime(o.expiresIn ?? '10m');
      return jwt.sign(o.key ?? privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function jwtConfig(idp: TestIdp): Partial<Config> {
  return { jwksUrl: idp.jwksUrl, jwtIssuer: idp.issuer, jwtAudience: idp.audience };
}

/** Another instance on an existing database (two-instance tests; PostgreSQL only). */
export async function startInstance(databaseUrl: string, overrides: Partial<Config> = {}): Promise<{ app: RunningApp; url: string }> {
  const config = loadConfig({}, { host: '127.0.0.1', port: 0, poolThreads: 1, databaseUrl, dataDir: 'memory://', shutdownGraceMs: 2000, ...overrides });
  const app = await startApp(config, createLogger(process.env.TEST_LOGS === 'true'));
  return { app, url: `http://127.0.0.1:${app.port}` };
}

export async function call(url: string, method: string, path: string, key: string | null, body?: unknown) {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}
