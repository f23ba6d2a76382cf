// What bench/http loads: keys made by the CLI, the document, and the request of each target.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { packageRoot } from '../../src/lib/root.js';

/** A new API key of `plan` in the PGlite data directory (or DATABASE_URL when set). */
export function createKey(dataDir: string, plan: string): string {
  const out = execFileSync(process.execPath, [join(packageRoot(), 'dist/src/cli/keys.js'), 'create', '--plan', plan], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL ?? '' },
  });
  return (JSON.parse(out.toString()) as { key: string }).key;
}

/** The compressed document: a real README of about 2,800 characters. */
/**
 * The compressed document: TypeScript's README (2.8k characters, about 700 tokens) unless BENCH_DOC
 * names another file (relative to the package root), e.g. node_modules/piscina/README.md for about 10k tokens.
 */
export const benchDocument = (): string => readFileSync(join(packageRoot(), process.env.BENCH_DOC ?? 'node_modules/typescript/README.md'), 'utf8');

/** A Free key (no semantic cache) measures real compression; an Enterprise key measures cache hits. */
export function targets(serviceUrl: string, keys: { free: string; enterprise: string }, doc = benchDocument()) {
  const body = JSON.stringify({ text: doc, fidelity: 'balanced' });
  const post = (key: string): autocannon.Options => ({
    url: serviceUrl + '/v1/compress',
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
  return {
    liveness: { url: serviceUrl + '/health/liveness' } as autocannon.Options,
    hit: post(keys.enterprise),
    computed: post(keys.free),
  };
}
