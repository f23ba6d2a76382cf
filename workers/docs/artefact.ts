// The documentation index artefact (models/docs-index/), written by scripts/docslookup/build.ts from
// the pinned npm packages and read by the pool workers (workers/docs/index.ts).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../embed/paths.js';

export const DOCS_INDEX_VERSION = 1;

export interface DocsFramework {
  id: string;
  name: string;
  package: string;
  version: string;
  /** Other names a question may use for it ("mcp", "postgres.js"). */
  aliases: string[];
  /** Official pages' base: the repository's tree at the version's tag. */
  url: string;
  pages: number;
  chunks: number;
  tokens: number;
}

export interface DocsPage {
  /** "<framework>/<path without .md>", e.g. fastify/docs/Reference/Routes. */
  id: string;
  framework: string;
  title: string;
  url: string;
  markdown: string;
  tokens: number;
}

export interface DocsChunk {
  /** "<page id>#<ordinal>". */
  id: string;
  page: number;
  /** "Page title › Section › Subsection". */
  title: string;
  /** The page's URL with the section's anchor. */
  url: string;
  text: string;
  tokens: number;
}

export interface DocsIndexFile {
  version: number;
  /** sha256 of the pages and chunks: changes exactly when the indexed content does. */
  content_sha256: string;
  embedding: { model: string; dims: number; file: string };
  frameworks: DocsFramework[];
  pages: DocsPage[];
  chunks: DocsChunk[];
}

export function docsIndexDir(): string {
  const env = process.env.DOCS_INDEX_DIR;
  return env && env.trim() ? env.trim() : join(packageRoot(), 'models', 'docs-index');
}

export function readDocsIndex(dir = docsIndexDir()): { file: DocsIndexFile; vectors: Float32Array | null } {
  const path = join(dir, 'index.json');
  if (!existsSync(path)) throw new Error(`documentation index missing at ${path} (npm run docs:index builds it)`);
  const file = JSON.parse(readFileSync(path, 'utf8')) as DocsIndexFile;
  if (file.version !== DOCS_INDEX_VERSION) throw new Error(`documentation index version ${file.version}, expected ${DOCS_INDEX_VERSION}`);
  const vpath = join(dir, file.embedding.file);
  let vectors: Float32Array | null = null;
  if (existsSync(vpath)) {
    const b = readFileSync(vpath);
    const copy = new Uint8Array(b.byteLength);
    copy.set(b);
    vectors = new Float32Array(copy.buffer);
    if (vectors.length !== file.chunks.length * file.embedding.dims) vectors = null;
  }
  return { file, vectors };
}
