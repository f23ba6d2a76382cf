// Correctness of gc_defs / gc_refs / gc_callers against the TypeScript language service on a real
// TypeScript code base (default: this repository's src/ and workers/, committed files only).
//
//   npm run build && node dist/bench/codeintel/oracle.js [root …]   (BENCH_ORACLE_SYMBOLS, default 400)
//
// The index is the one the tools answer from (RepoIndex over the tree-sitter analyses); the oracle
// is ts.LanguageService over the same files. Measured:
//  - gc_defs: every function, method, class, interface, enum and type alias the TS AST declares is
//    looked up as `path:Container.name` and must come back at its line (recall); every definition we
//    index must be such a TS declaration (precision).
//  - gc_refs: for sampled functions and methods, the (file, line) of every reference TS finds
//    (findReferences, without the declaration itself and without import/export specifiers, which
//    are bindings rather than uses) against the lines gc_refs reports.
//  - gc_callers: the call sites TS's call hierarchy reports (incoming calls, fromSpans) against the
//    lines gc_callers reports.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { RepoIndex } from '../../workers/codeIntel/repoIndex.js';
import { codeIntelTasks } from '../../workers/codeIntel/tasks.js';
import { sized } from '../lib/smoke.js';

const repo = resolve(process.cwd());
const roots = process.argv.slice(2).length ? process.argv.slice(2) : sized(['src', 'workers'], ['src/lib']);
const SAMPLE = Number(process.env.BENCH_ORACLE_SYMBOLS ?? sized(400, 5));

function listFiles(): string[] {
  const out: string[] = [];
  for (const root of roots) {
    let files: string[];
    try {
      files = execFileSync('git', ['ls-files', root], { cwd: repo, encoding: 'utf8' }).split('\n').filter(Boolean);
    } catch {
      files = [];
    }
    if (files.length === 0) files = execFileSync('find', [root, '-name', '*.ts'], { cwd: repo, encoding: 'utf8' }).split('\n').filter(Boolean);
    out.push(...files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')));
  }
  return out.sort();
}

const files = listFiles();
const contents = new Map(files.map((f) => [f, readFileSync(join(repo, f), 'utf8').replace(/\r\n?/g, '\n')]));

// ---- our index ----
const t0 = performance.now();
const index = new RepoIndex();
// The pool task of an ingest, then the thread's decode: the production path in one thread.
const analysed = codeIntelTasks.codeIntelAnalyse({ files: files.map((f) => ({ path: f, content: contents.get(f)! })), known: {} });
index.apply(analysed.analysed.map((a) => JSON.parse(a.json)), []);
const indexMs = performance.now() - t0;

// ---- the oracle ----
const abs = (f: string) => join(repo, f);
const host: ts.LanguageServiceHost = {
  getScriptFileNames: () => files.map(abs),
  getScriptVersion: () => '1',
  getScriptSnapshot: (name) => {
    const rel = relative(repo, name);
    const text = contents.get(rel) ?? (ts.sys.fileExists(name) ? ts.sys.readFile(name) : undefined);
    return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
  },
  getCurrentDirectory: () => repo,
  getCompilationSettings: () => ({ target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, skipLibCheck: true, types: ['node'] }),
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists,
  readFile: ts.sys.readFile,
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
};
const ls = ts.createLanguageService(host, ts.createDocumentRegistry());
const program = ls.getProgram()!;

interface Decl {
  file: string;
  name: string;
  container: string | null;
  line: number;
  kind: 'function' | 'method' | 'class' | 'interface' | 'enum' | 'type';
  pos: number;
}
const decls: Decl[] = [];
const lineOf = (sf: ts.SourceFile, pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
for (const f of files) {
  const sf = program.getSourceFile(abs(f))!;
  const visit = (node: ts.Node, container: string | null, inFunction: boolean) => {
    const add = (name: ts.Node | undefined, kind: Decl['kind']) => {
      if (name && ts.isIdentifier(name)) decls.push({ file: f, name: name.text, container, line: lineOf(sf, name.getStart(sf)), kind, pos: name.getStart(sf) });
    };
    if (!inFunction) {
      if (ts.isFunctionDeclaration(node)) add(node.name, 'function');
      else if ((ts.isMethodDeclaration(node) || ts.isMethodSignature(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) && container) add(node.name, 'method');
      else if (ts.isConstructorDeclaration(node) && container) {
        const kw = node.getChildren(sf).find((c) => c.kind === ts.SyntaxKind.ConstructorKeyword);
        if (kw) decls.push({ file: f, name: 'constructor', container, line: lineOf(sf, kw.getStart(sf)), kind: 'method', pos: kw.getStart(sf) });
      } else if (ts.isVariableDeclaration(node) && node.initializer && (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer)) && ts.isVariableStatement(node.parent.parent) && ts.isSourceFile(node.parent.parent.parent)) add(node.name, 'function');
      else if (ts.isClassDeclaration(node)) add(node.name, 'class');
      else if (ts.isInterfaceDeclaration(node)) add(node.name, 'interface');
      else if (ts.isEnumDeclaration(node)) add(node.name, 'enum');
      else if (ts.isTypeAliasDeclaration(node)) add(node.name, 'type');
    }
    const isClassLike = ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node);
    const isFn = ts.isFunctionLike(node);
    ts.forEachChild(node, (c) => visit(c, isClassLike && node.name ? node.name.text : isFn ? container : container, inFunction || isFn));
  };
  visit(sf, null, false);
}

// ---- gc_defs ----
let defsHit = 0;
const defMisses: string[] = [];
for (const d of decls) {
  const symbol = `${d.file}:${d.container ? `${d.container}.` : ''}${d.name}`;
  const r = index.defs(symbol, null, 50);
  const ok = r.definitions.some((x) => x.path === d.file && x.start_line <= d.line && d.line <= x.end_line && x.name === d.name);
  if (ok) defsHit++;
  else if (defMisses.length < 15) defMisses.push(`${symbol} @${d.line}`);
}
const declKeys = new Set(decls.map((d) => `${d.file}:${d.name}:${d.line}`));
const ours = index.code.units;
let defsTrue = 0;
const defFalse: string[] = [];
ours.forEach((u, i) => {
  const path = index.code.paths[index.code.table.fileOf[i]!]!;
  // A unit's name line is within its range; the TS declaration line is the name's line.
  let ok = false;
  for (let l = u.startLine; l <= Math.min(u.endLine, u.startLine + 5) && !ok; l++) ok = declKeys.has(`${path}:${u.name}:${l}`);
  if (ok) defsTrue++;
  else if (defFalse.length < 15) defFalse.push(`${path}:${u.qualified} @${u.startLine} (${u.kind})`);
});

// ---- gc_refs and gc_callers ----
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}
const rand = rng(17);
const candidates = decls.filter((d) => d.kind === 'function' || d.kind === 'method');
const sample = [...candidates].sort(() => rand() - 0.5).slice(0, SAMPLE);

const isBinding = (sf: ts.SourceFile, pos: number) => {
  let n: ts.Node | undefined = findNode(sf, pos);
  while (n && !ts.isSourceFile(n)) {
    if (ts.isImportDeclaration(n) || ts.isExportDeclaration(n) || ts.isImportEqualsDeclaration(n)) return true;
    n = n.parent;
  }
  return false;
};
function findNode(sf: ts.SourceFile, pos: number): ts.Node | undefined {
  let found: ts.Node | undefined;
  const walk = (n: ts.Node) => {
    if (pos >= n.getStart(sf) && pos < n.getEnd()) {
      found = n;
      ts.forEachChild(n, walk);
    }
  };
  walk(sf);
  return found;
}

interface Score {
  tp: number;
  fp: number;
  fn: number;
}
const refScore: Score = { tp: 0, fp: 0, fn: 0 };
const callScore: Score = { tp: 0, fp: 0, fn: 0 };
const refMacro = { p: 0, r: 0, n: 0 };
const callMacro = { p: 0, r: 0, n: 0 };
const refExamples: string[] = [];
const callExamples: string[] = [];
let ambiguousRefs = 0;
let totalRefs = 0;
const refTimes: number[] = [];
const callTimes: number[] = [];

/** (path:line) inside some indexed definition; references elsewhere (module-level code) cannot be attributed to one. */
const unitLines = new Set<string>();
index.code.units.forEach((u, i) => {
  const path = index.code.paths[index.code.table.fileOf[i]!]!;
  for (let l = u.startLine; l <= u.endLine; l++) unitLines.add(`${path}:${l}`);
});
const missedTopLevel = { refs: 0, calls: 0 };

const dump: string[] = [];
const lineText = (key: string) => {
  const at = key.lastIndexOf(':');
  return (contents.get(key.slice(0, at))?.split('\n')[Number(key.slice(at + 1)) - 1] ?? '').trim().slice(0, 140);
};
function score(truth: Set<string>, got: Set<string>, acc: Score, macro: { p: number; r: number; n: number }, examples: string[], label: string) {
  let tp = 0;
  if (process.env.BENCH_ORACLE_DUMP) {
    const kind = examples === refExamples ? 'refs' : 'calls';
    for (const t of truth) if (!got.has(t)) dump.push(`${kind}\tFN\t${label}\t${t}\t${unitLines.has(t) ? 'unit' : 'module'}\t${lineText(t)}`);
    for (const g of got) if (!truth.has(g)) dump.push(`${kind}\tFP\t${label}\t${g}\t${unitLines.has(g) ? 'unit' : 'module'}\t${lineText(g)}`);
  }
  for (const t of truth) if (!got.has(t) && !unitLines.has(t)) missedTopLevel[examples === refExamples ? 'refs' : 'calls']++;
  for (const g of got) if (truth.has(g)) tp++;
  acc.tp += tp;
  acc.fp += got.size - tp;
  acc.fn += truth.size - tp;
  if (truth.size > 0 || got.size > 0) {
    macro.p += got.size ? tp / got.size : 1;
    macro.r += truth.size ? tp / truth.size : 1;
    macro.n++;
  }
  if ((tp < got.size || tp < truth.size) && examples.length < 12) {
    const fp = [...got].filter((g) => !truth.has(g)).slice(0, 3);
    const fn = [...truth].filter((g) => !got.has(g)).slice(0, 3);
    examples.push(`${label}: extra ${JSON.stringify(fp)} missing ${JSON.stringify(fn)}`);
  }
}

for (const d of sample) {
  const symbol = `${d.file}:${d.container ? `${d.container}.` : ''}${d.name}`;
  const sf = program.getSourceFile(abs(d.file))!;
  // Truth: references.
  const refs = ls.findReferences(abs(d.file), d.pos) ?? [];
  const truth = new Set<string>();
  for (const group of refs) {
    for (const r of group.references) {
      if (r.isDefinition) continue;
      const rf = relative(repo, r.fileName);
      if (!contents.has(rf)) continue;
      const rsf = program.getSourceFile(r.fileName)!;
      if (isBinding(rsf, r.textSpan.start)) continue;
      truth.add(`${rf}:${lineOf(rsf, r.textSpan.start)}`);
    }
  }
  let t = performance.now();
  const ours = index.refs(symbol, ['call', 'reference'], 100_000);
  refTimes.push(performance.now() - t);
  const got = new Set<string>();
  for (const r of ours.references) {
    totalRefs++;
    if (r.ambiguous) ambiguousRefs++;
    for (const l of r.lines) got.add(`${r.path}:${l}`);
  }
  score(truth, got, refScore, refMacro, refExamples, symbol);

  // Truth: call sites from the call hierarchy.
  const items = ls.prepareCallHierarchy(abs(d.file), d.pos);
  const item = Array.isArray(items) ? items[0] : items;
  const callTruth = new Set<string>();
  if (item) {
    for (const inc of ls.provideCallHierarchyIncomingCalls(abs(d.file), item.selectionSpan.start)) {
      const rf = relative(repo, inc.from.file);
      if (!contents.has(rf)) continue;
      const rsf = program.getSourceFile(inc.from.file)!;
      for (const span of inc.fromSpans) callTruth.add(`${rf}:${lineOf(rsf, span.start)}`);
    }
  }
  t = performance.now();
  const oursCalls = index.refs(symbol, ['call'], 100_000);
  callTimes.push(performance.now() - t);
  const gotCalls = new Set<string>();
  for (const r of oursCalls.references) for (const l of r.lines) gotCalls.add(`${r.path}:${l}`);
  score(callTruth, gotCalls, callScore, callMacro, callExamples, symbol);
  void sf;
}

if (process.env.BENCH_ORACLE_DUMP) writeFileSync(process.env.BENCH_ORACLE_DUMP, `${dump.join('\n')}\n`);
const pr = (s: Score) => ({ precision: s.tp / Math.max(1, s.tp + s.fp), recall: s.tp / Math.max(1, s.tp + s.fn) });
const f3 = (x: number) => x.toFixed(3);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;
const defs = { precision: defsTrue / Math.max(1, ours.length), recall: defsHit / Math.max(1, decls.length) };
const refsPr = pr(refScore);
const callsPr = pr(callScore);
console.log(`# gc_defs / gc_refs / gc_callers vs the TypeScript language service (${new Date().toISOString()})`);
console.log(`corpus: ${roots.join(', ')}: ${files.length} files, ${[...contents.values()].reduce((s, c) => s + c.length, 0)} chars; index built in ${indexMs.toFixed(0)} ms (${index.size.units} units, ${index.size.edges} edges)`);
console.log('');
console.log('| measure | items | precision | recall |');
console.log('|---|---:|---:|---:|');
console.log(`| gc_defs (declarations found at their line / our definitions that are TS declarations) | ${decls.length} TS decls, ${ours.length} ours | ${f3(defs.precision)} | ${f3(defs.recall)} |`);
console.log(`| gc_refs, reference lines, micro (sum over ${sample.length} functions/methods) | tp ${refScore.tp}, fp ${refScore.fp}, fn ${refScore.fn} | ${f3(refsPr.precision)} | ${f3(refsPr.recall)} |`);
console.log(`| gc_refs, macro (mean per symbol) | ${refMacro.n} | ${f3(refMacro.p / Math.max(1, refMacro.n))} | ${f3(refMacro.r / Math.max(1, refMacro.n))} |`);
console.log(`| gc_callers, call-site lines, micro | tp ${callScore.tp}, fp ${callScore.fp}, fn ${callScore.fn} | ${f3(callsPr.precision)} | ${f3(callsPr.recall)} |`);
console.log(`| gc_callers, macro | ${callMacro.n} | ${f3(callMacro.p / Math.max(1, callMacro.n))} | ${f3(callMacro.r / Math.max(1, callMacro.n))} |`);
console.log('');
console.log(`missed references outside any definition (module-level code): gc_refs ${missedTopLevel.refs} of ${refScore.fn}, gc_callers ${missedTopLevel.calls} of ${callScore.fn}`);
console.log(`references marked ambiguous: ${ambiguousRefs} of ${totalRefs}`);
console.log(`in-thread query time (no transport): gc_refs p50 ${pct(refTimes, 50).toFixed(2)} ms p99 ${pct(refTimes, 99).toFixed(2)} ms; gc_callers p50 ${pct(callTimes, 50).toFixed(2)} ms p99 ${pct(callTimes, 99).toFixed(2)} ms`);
console.log('');
console.log('gc_defs misses (first 15):', defMisses);
console.log('definitions that are no TS declaration (first 15):', defFalse);
console.log('gc_refs differences (first 12):');
for (const e of refExamples) console.log(`  ${e}`);
console.log('gc_callers differences (first 12):');
for (const e of callExamples) console.log(`  ${e}`);
