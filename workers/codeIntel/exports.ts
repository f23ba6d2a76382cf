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

export interface HtmlGraph {
  title: string;
  nodes: Array<{ id: string; label: string; kind: string; path: string; start_line: number; pagerank: number }>;
  edges: Array<{ source: string; target: string; kind: string; weight: number }>;
  total_nodes: number;
  total_edges: number;
}

/** JSON safe inside a <script> element: no `</script>`, no `<!--`, no U+2028/2029 surprises. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** The page's own script: a force-directed layout (Fruchterman-Reingold, deterministic start), drawn as SVG; wheel zooms, drag pans, a click shows a node's neighbours. */
const VIEWER = String.raw`
(function () {
  var data = JSON.parse(document.getElementById('graph-data').textContent);
  var NS = 'http://www.w3.org/2000/svg';
  var svg = document.getElementById('graph');
  var info = document.getElementById('info');
  var n = data.nodes.length;
  var index = {};
  data.nodes.forEach(function (d, i) { index[d.id] = i; });
  var edges = data.edges.filter(function (e) { return e.source in index && e.target in index && e.source !== e.target; })
    .map(function (e) { return { s: index[e.source], t: index[e.target], kind: e.kind, weight: e.weight }; });
  var W = 1000, H = 700;
  var x = new Float64Array(n), y = new Float64Array(n);
  // Deterministic start: a sunflower spiral, so the same graph always lays out the same way.
  for (var i = 0; i < n; i++) {
    var r = 10 * Math.sqrt(i + 0.5), a = i * 2.399963229728653;
    x[i] = W / 2 + r * Math.cos(a); y[i] = H / 2 + r * Math.sin(a);
  }
  var k = Math.sqrt((W * H) / Math.max(1, n)) * 0.6;
  var iterations = Math.max(30, Math.min(300, Math.floor(2e7 / Math.max(1, n * n))));
  var t = W / 10, dx = new Float64Array(n), dy = new Float64Array(n);
  for (var it = 0; it < iterations; it++) {
    dx.fill(0); dy.fill(0);
    for (var p = 0; p < n; p++) for (var q = p + 1; q < n; q++) {
      var ex = x[p] - x[q], ey = y[p] - y[q], d2 = ex * ex + ey * ey + 0.01, f = (k * k) / d2;
      dx[p] += ex * f; dy[p] += ey * f; dx[q] -= ex * f; dy[q] -= ey * f;
    }
    for (var j = 0; j < edges.length; j++) {
      var e = edges[j], ax = x[e.s] - x[e.t], ay = y[e.s] - y[e.t], d = Math.sqrt(ax * ax + ay * ay) + 0.01, g = (d / k) * e.weight;
      dx[e.s] -= ax * g; dy[e.s] -= ay * g; dx[e.t] += ax * g; dy[e.t] += ay * g;
    }
    for (var m = 0; m < n; m++) {
      dx[m] += (W / 2 - x[m]) * 0.08; dy[m] += (H / 2 - y[m]) * 0.08; // gravity keeps components (and lone nodes) in view
      var len = Math.sqrt(dx[m] * dx[m] + dy[m] * dy[m]) + 1e-9, step = Math.min(len, t);
      x[m] += (dx[m] / len) * step; y[m] += (dy[m] / len) * step;
    }
    t *= 0.97;
  }
  // Fit into the view box.
  var minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (var s = 0; s < n; s++) { minX = Math.min(minX, x[s]); maxX = Math.max(maxX, x[s]); minY = Math.min(minY, y[s]); maxY = Math.max(maxY, y[s]); }
  var sx = (W - 80) / Math.max(1, maxX - minX), sy = (H - 80) / Math.max(1, maxY - minY), sc = Math.min(sx, sy);
  for (var u = 0; u < n; u++) { x[u] = 40 + (x[u] - minX) * sc; y[u] = 40 + (y[u] - minY) * sc; }

  function hue(path) { var h = 0; for (var c = 0; c < path.length; c++) h = (h * 31 + path.charCodeAt(c)) % 360; return h; }
  var maxRank = data.nodes.reduce(function (a, d) { return Math.max(a, d.pagerank); }, 0) || 1;
  var root = document.createElementNS(NS, 'g');
  root.setAttribute('id', 'viewport');
  svg.appendChild(root);
  var lines = edges.map(function (e) {
    var l = document.createElementNS(NS, 'line');
    l.setAttribute('class', 'edge ' + e.kind);
    l.setAttribute('x1', x[e.s].toFixed(1)); l.setAttribute('y1', y[e.s].toFixed(1));
    l.setAttribute('x2', x[e.t].toFixed(1)); l.setAttribute('y2', y[e.t].toFixed(1));
    l.setAttribute('marker-end', 'url(#arrow)');
    root.appendChild(l);
    return l;
  });
  var circles = data.nodes.map(function (d, i) {
    var c = document.createElementNS(NS, 'circle');
    c.setAttribute('class', 'node');
    c.setAttribute('data-id', d.id);
    c.setAttribute('cx', x[i].toFixed(1)); c.setAttribute('cy', y[i].toFixed(1));
    c.setAttribute('r', (4 + 10 * Math.sqrt(d.pagerank / maxRank)).toFixed(1));
    c.setAttribute('fill', 'hsl(' + hue(d.path) + ',60%,55%)');
    var title = document.createElementNS(NS, 'title');
    title.textContent = d.label + ' (' + d.kind + ') ' + d.path + ':' + d.start_line;
    c.appendChild(title);
    c.addEventListener('click', function () { select(i); });
    root.appendChild(c);
    return c;
  });
  var showLabels = n <= 150;
  data.nodes.forEach(function (d, i) {
    if (!showLabels && d.pagerank < maxRank * 0.3) return;
    var tx = document.createElementNS(NS, 'text');
    tx.setAttribute('class', 'label');
    tx.setAttribute('x', (x[i] + 8).toFixed(1)); tx.setAttribute('y', (y[i] + 3).toFixed(1));
    tx.textContent = d.label;
    root.appendChild(tx);
  });
  function select(i) {
    var near = {}; near[i] = true;
    edges.forEach(function (e, j) {
      var on = e.s === i || e.t === i;
      if (on) { near[e.s] = true; near[e.t] = true; }
      lines[j].classList.toggle('dim', !on);
    });
    circles.forEach(function (c, j) { c.classList.toggle('dim', !near[j]); });
    var d = data.nodes[i];
    var callers = edges.filter(function (e) { return e.t === i; }).map(function (e) { return data.nodes[e.s].label; });
    var callees = edges.filter(function (e) { return e.s === i; }).map(function (e) { return data.nodes[e.t].label; });
    info.textContent = d.label + ' — ' + d.kind + ', ' + d.path + ':' + d.start_line + '\nused by: ' + (callers.join(', ') || '-') + '\nuses: ' + (callees.join(', ') || '-');
  }
  // Zoom with the wheel, pan by dragging the background.
  var view = { x: 0, y: 0, w: W, h: H };
  function apply() { svg.setAttribute('viewBox', view.x + ' ' + view.y + ' ' + view.w + ' ' + view.h); }
  svg.addEventListener('wheel', function (ev) {
    ev.preventDefault();
    var f = ev.deltaY > 0 ? 1.15 : 1 / 1.15, r = svg.getBoundingClientRect();
    var px = view.x + ((ev.clientX - r.left) / r.width) * view.w, py = view.y + ((ev.clientY - r.top) / r.height) * view.h;
    view.x = px - (px - view.x) * f; view.y = py - (py - view.y) * f; view.w *= f; view.h *= f; apply();
  }, { passive: false });
  var drag = null;
  svg.addEventListener('mousedown', function (ev) { if (ev.target === svg) drag = { x: ev.clientX, y: ev.clientY }; });
  window.addEventListener('mouseup', function () { drag = null; });
  window.addEventListener('mousemove', function (ev) {
    if (!drag) return;
    var r = svg.getBoundingClientRect();
    view.x -= ((ev.clientX - drag.x) / r.width) * view.w; view.y -= ((ev.clientY - drag.y) / r.height) * view.h;
    drag = { x: ev.clientX, y: ev.clientY }; apply();
  });
  apply();
  document.body.setAttribute('data-rendered', String(n));
})();
`;

/** One self-contained HTML page (inline data, script and styles; nothing fetched) drawing the graph as SVG. */
export function toHtml(g: HtmlGraph): string {
  const title = xmlEscape(g.title);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
  body { margin: 0; font: 13px system-ui, sans-serif; color: #222; background: #fafafa; }
  header { padding: 8px 12px; border-bottom: 1px solid #ddd; }
  #graph { width: 100vw; height: calc(100vh - 120px); display: block; cursor: grab; background: #fff; }
  .edge { stroke: #999; stroke-opacity: 0.5; stroke-width: 1; }
  .edge.reference { stroke-dasharray: 4 3; }
  .node { stroke: #333; stroke-width: 0.8; cursor: pointer; }
  .dim { opacity: 0.12; }
  .label { font-size: 10px; fill: #333; pointer-events: none; }
  #info { white-space: pre-wrap; padding: 6px 12px; height: 60px; overflow: auto; border-top: 1px solid #ddd; }
</style>
</head>
<body>
<header><strong>${title}</strong> — ${g.nodes.length} of ${g.total_nodes} definitions (most central first), ${g.edges.length} of ${g.total_edges} edges. Solid: call, dashed: reference. Wheel: zoom, drag: pan, click: neighbours.</header>
<svg id="graph" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${title}">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="16" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#999"/></marker></defs>
</svg>
<div id="info">Click a node.</div>
<script id="graph-data" type="application/json">${scriptJson({ nodes: g.nodes, edges: g.edges })}</script>
<script>${VIEWER}</script>
</body>
</html>
`;
}
