// A peer as the test holds it: its own Ed25519 key pair, its public JWK (with kid) and signing.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { calculateJwkThumbprint, CompactSign, exportJWK, generateKeyPair, type JWK } from 'jose';
import { waitFor } from '../helpers/waitFor.js';

export interface TestPeer {
  kid: string;
  publicJwk: JWK;
  sign(payload: Record<string, unknown>, kid?: string): Promise<string>;
}

export async function makePeer(): Promise<TestPeer> {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  return {
    kid,
    publicJwk: { ...jwk, kid },
    sign: (payload, useKid = kid) =>
      new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: 'EdDSA', kid: useKid }).sign(privateKey),
  };
}

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A local webhook receiver: records every POST; `fail` answers 500 to the first n requests. */
export async function startReceiver(fail = 0): Promise<{ url: string; host: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  let failures = fail;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (failures > 0) {
        failures--;
        res.writeHead(500).end();
        return;
      }
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    host: `127.0.0.1:${port}`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** The value of `fn` once `ok` holds, or its last value when the time is up (the caller's assertion then names it). */
export async function until<T>(fn: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  let last!: T;
  await waitFor('condition', async () => ok((last = await fn())), { timeoutMs, everyMs: 50 }).catch(() => undefined);
  return last;
}
