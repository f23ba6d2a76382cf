// `npm run docs:index`: rebuilds models/docs-index/ (the documentation lookup's index) from the Markdown
// shipped in the pinned npm packages of scripts/docslookup/frameworks.json. Deterministic: the same
// packages give byte-identical files. Offline: it reads node_modules and the shipped embedding model.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { OnnxEmbedder } from '../../workers/embed/embedder.js';
import { modelDir, packageRoot } from '../../workers/embed/paths.js';
import { DOCS_INDEX_VERSION, docsIndexDir, type DocsChunk, type DocsFramework, type DocsIndexFile, type DocsPage } from '../../workers/docs/artefact.js';
import { chunkEmbeddingText, splitPage } from '../../workers/docs/pages.js';

interface FrameworkSpec {
  id: string;
  name: string;
  package: string;
  version: string;
  aliases?: string[];
  url: string;
  include: string[];
  exclude: string[];
}

/** The package's folder (not require.resolve: some packages do not export package.json). */
function packageDir(pkg: string): string {
  return join(packageRoot(), 'node_modules', pkg);
}

function markdownFiles(root: string, spec: FrameworkSpec): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.toLowerCase().endsWith('.md')) out.push(relative(root, p).split('\\').join('/'));
    }
  };
  for (const inc of spec.include) {
    const p = join(root, inc);
    if (inc.endsWith('/')) walk(p);
    else {
      statSync(p); // a listed file that is missing fails the build
      out.push(inc);
    }
  }
  return [...new Set(out)].filter((f) => !spec.exclude.includes(f));
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const config = JSON.parse(readFileSync(join(packageRoot(), 'scripts', 'docslookup', 'frameworks.json'), 'utf8')) as { frameworks: FrameworkSpec[] };
  const frameworks: DocsFramework[] = [];
  const pages: DocsPage[] = [];
  const chunks: DocsChunk[] = [];
  for (const spec of config.frameworks) {
    const root = packageDir(spec.package);
    const installed = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
    if (installed !== spec.version) throw new Error(`${spec.package} is ${installed}, frameworks.json pins ${spec.version}`);
    const fw: DocsFramework = { id: spec.id, name: spec.name, package: spec.package, version: spec.version, aliases: spec.aliases ?? [], url: spec.url, pages: 0, chunks: 0, tokens: 0 };
    for (const path of markdownFiles(root, spec)) {
      const markdown = readFileSync(join(root, path), 'utf8').replace(/\r\n/g, '\n');
      const split = await splitPage(markdown, path, spec.name);
      if (split.chunks.length === 0) continue;
      const pageIndex = pages.length;
      const pageId = `${spec.id}/${path.replace(/\.md$/i, '')}`;
      const url = spec.url + path;
      pages.push({ id: pageId, framework: spec.id, title: split.title, url, markdown, tokens: split.tokens });
      split.chunks.forEach((c, i) => {
        chunks.push({ id: `${pageId}#${i}`, page: pageIndex, title: c.title, url: c.anchor ? `${url}#${c.anchor}` : url, text: c.text, tokens: c.tokens });
      });
      fw.pages++;
      fw.chunks += split.chunks.length;
      fw.tokens += split.tokens;
    }
    frameworks.push(fw);
  }

  const embedder = await OnnxEmbedder.load(modelDir());
  const dims = embedder.dims;
  const vectors = new Float32Array(chunks.length * dims);
  const SLICE = 256;
  for (let i = 0; i < chunks.length; i += SLICE) {
    const slice = chunks.slice(i, i + SLICE);
    const vecs = await embedder.embed(slice.map((c) => chunkEmbeddingText(frameworks.find((f) => f.id === pages[c.page]!.framework)!.name, c.title, c.text)));
    vecs.forEach((v, j) => vectors.set(v, (i + j) * dims));
  }
  await embedder.release();

  const content_sha256 = createHash('sha256').update(JSON.stringify({ pages, chunks })).digest('hex');
  const file: DocsIndexFile = {
    version: DOCS_INDEX_VERSION,
    content_sha256,
    embedding: { model: embedder.modelId, dims, file: 'vectors.f32' },
    frameworks,
    pages,
    chunks,
  };
  const out = docsIndexDir();
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'index.json'), JSON.stringify(file) + '\n');
  writeFileSync(join(out, 'vectors.f32'), new Uint8Array(vectors.buffer));
  for (const f of frameworks) console.log(`${f.id.padEnd(10)} ${f.package}@${f.version}: ${f.pages} pages, ${f.chunks} chunks, ${f.tokens} tokens`);
  console.log(`${pages.length} pages, ${chunks.length} chunks, ${dims}-d vectors (${embedder.modelId}) -> ${out} in ${Date.now() - t0} ms`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
