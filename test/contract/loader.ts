// Reads every contract file under test/contract/spec/ (one per area of the spec). A new area joins by
// adding a file there; no shared index to edit.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ContractFile, RouteContract, ToolContract } from './contract.js';

export const SPEC_DIR = join(dirname(fileURLToPath(import.meta.url)), 'spec');

export interface LoadedContract {
  files: { name: string; file: ContractFile }[];
  routes: (RouteContract & { file: string })[];
  tools: (ToolContract & { file: string })[];
}

export async function loadContracts(dir = SPEC_DIR): Promise<LoadedContract> {
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .sort();
  const files: LoadedContract['files'] = [];
  for (const name of names) {
    const mod = (await import(pathToFileURL(join(dir, name)).href)) as { default?: ContractFile };
    const file = mod.default;
    if (!file || typeof file.area !== 'string') throw new Error(`test/contract/spec/${name} must export default a ContractFile ({ area, routes?, tools?, setup? })`);
    files.push({ name, file });
  }
  return {
    files,
    routes: files.flatMap(({ name, file }) => (file.routes ?? []).map((r) => ({ ...r, file: name }))),
    tools: files.flatMap(({ name, file }) => (file.tools ?? []).map((x) => ({ ...x, file: name }))),
  };
}

export const routeKey = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
