// Graph exports of the repository index: GraphML (export_graph_graphml). Input is the JSON graph
// RepoIndex.graph() answers (export_graph_json), so both exports show the same graph.

export interface GraphJson {
  nodes: Array<{ id: string; kind: string; name: string; path: string; start_line: number; end_line: number; exported: boolean; pagerank: number }>;
  edges: Array<{ source: string; target: string; kind: string; weight: number }>;
  files: Array<{ path: string; language: string; parser: string; units: number; lines: number }>;
  file_edges: Array<{ source: string; target: string; kind: 'import' }>;
}

// XML 1.0 allows tab, LF, CR and code points from U+0020 (minus surrogates and U+FFFE/U+FFFF).
// eslint-disable-next-line no-control-regex
const NOT_XML = /[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

export function xmlEscape(s: string): string {
  return s.replace(NOT_XML, '\ufffd').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

type KeyType = 'string' | 'int' | 'double' | 'boolean';
interface Key {
  id: string;
  for: 'node' | 'edge';
  name: string;
  type: KeyType;
}

const KEYS: Key[] = [
  { id: 'n_label', for: 'node', name: 'label', type: 'string' },
  { id: 'n_type', for: 'node', name: 'type', type: 'string' },
  { id: 'n_kind', for: 'node', name: 'kind', type: 'string' },
  { id: 'n_path', for: 'node', name: 'path', type: 'string' },
  { id: 'n_language', for: 'node', name: 'language', type: 'string' },
  { id: 'n_start', for: 'node', name: 'start_line', type: 'int' },
  { id: 'n_end', for: 'node', name: 'end_line', type: 'int' },
  { id: 'n_exported', for: 'node', name: 'exported', type: 'boolean' },
  { id: 'n_pagerank', for: 'node', name: 'pagerank', type: 'double' },
  { id: 'e_kind', for: 'edge', name: 'kind', type: 'string' },
  { id: 'e_weight', for: 'edge', name: 'weight', type: 'double' },
];

function data(key: string, value: string | number | boolean): string {
  return `<data key="${key}">${xmlEscape(String(value))}</data>`;
}

/**
 * GraphML 1.0: definitions as nodes (type `symbol`) with call/reference edges; with `include_files`,
 * files as nodes too (type `file`) with `import` edges between them and `contains` edges to their
 * definitions. Directed; one edge element per edge, ids e0, e1, …
 */
export function toGraphml(g: GraphJson, opts: { include_files: boolean }): string {
  const out: string[] = [];
  out.push('<?xml version="1.0" encoding="UTF-8"?>');
  out.push(
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
  );
  for (const k of KEYS) out.push(`  <key id="${k.id}" for="${k.for}" attr.name="${k.name}" attr.type="${k.type}"/>`);
  out.push('  <graph id="repository" edgedefault="directed">');
  const lang = new Map(g.files.map((f) => [f.path, f.language]));
  if (opts.include_files) {
    for (const f of g.files) {
      out.push(`    <node id="${xmlEscape(`file:${f.path}`)}">${data('n_label', f.path)}${data('n_type', 'file')}${data('n_path', f.path)}${data('n_language', f.language)}${data('n_end', f.lines)}</node>`);
    }
  }
  for (const n of g.nodes) {
    out.push(
      `    <node id="${xmlEscape(n.id)}">${data('n_label', n.name)}${data('n_type', 'symbol')}${data('n_kind', n.kind)}${data('n_path', n.path)}${data('n_language', lang.get(n.path) ?? '')}${data('n_start', n.start_line)}${data('n_end', n.end_line)}${data('n_exported', n.exported)}${data('n_pagerank', n.pagerank)}</node>`,
    );
  }
  let e = 0;
  for (const edge of g.edges) {
    out.push(`    <edge id="e${e++}" source="${xmlEscape(edge.source)}" target="${xmlEscape(edge.target)}">${data('e_kind', edge.kind)}${data('e_weight', edge.weight)}</edge>`);
  }
  if (opts.include_files) {
    const files = new Set(g.files.map((f) => f.path));
    for (const fe of g.file_edges) out.push(`    <edge id="e${e++}" source="${xmlEscape(`file:${fe.source}`)}" target="${xmlEscape(`file:${fe.target}`)}">${data('e_kind', 'import')}${data('e_weight', 1)}</edge>`);
    for (const n of g.nodes) if (files.has(n.path)) out.push(`    <edge id="e${e++}" source="${xmlEscape(`file:${n.path}`)}" target="${xmlEscape(n.id)}">${data('e_kind', 'contains')}${data('e_weight', 1)}</edge>`);
  }
  out.push('  </graph>');
  out.push('</graphml>');
  return `${out.join('\n')}\n`;
}
