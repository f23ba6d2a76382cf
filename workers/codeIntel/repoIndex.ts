// One project's repository index as the code-intelligence thread (indexThread.ts), the tests and the
// benches ask it: the storage and incremental graph of store.ts, and one method per query, each
// delegating to the module of its concept (resolve, refs, queries, editPlan, findings, graphViews,
// textViews). The thread calls these methods by name (QueryMethod).
import type { Pack, Severity } from './scan.js';
import { IndexStore } from './store.js';
import * as resolve from './resolve.js';
import * as refs from './refs.js';
import * as queries from './queries.js';
import * as editPlan from './editPlan.js';
import * as findings from './findings.js';
import * as graphViews from './graphViews.js';
import * as textViews from './textViews.js';

export class RepoIndex extends IndexStore {
  resolve(symbol: string): number[] {
    return resolve.resolve(this, symbol);
  }

  defs(symbol: string, from: string | null, limit: number) {
    return queries.defs(this, symbol, from, limit);
  }

  refs(symbol: string, kinds: Array<'call' | 'reference'>, limit: number) {
    return refs.refs(this, symbol, kinds, limit);
  }

  callees(symbol: string, limit: number) {
    return queries.callees(this, symbol, limit);
  }

  blast(symbols: string[], depth: number, limit: number) {
    return queries.blast(this, symbols, depth, limit);
  }

  impact(symbols: string[], depth: number, limit: number) {
    return queries.impact(this, symbols, depth, limit);
  }

  source(symbol: string, maxChars: number, limit: number) {
    return queries.source(this, symbol, maxChars, limit);
  }

  deadCode(pathPrefix: string | null, limit: number) {
    return queries.deadCode(this, pathPrefix, limit);
  }

  repoMap(opts: { query: string | null; focus_files: string[]; focus_symbols: string[]; token_budget: number }) {
    return textViews.repoMap(this, opts);
  }

  searchTexts() {
    return this.look.searchTexts();
  }

  search(query: string, limit: number, dense?: ReadonlyArray<[number, number]>, weights?: { lexical: number; dense: number }) {
    return queries.search(this, query, limit, dense, weights);
  }

  graph(opts: { path_prefix: string | null; max_nodes: number }) {
    return graphViews.graph(this, opts);
  }

  summary(top: number) {
    return graphViews.summary(this, top);
  }

  graphml(opts: { path_prefix: string | null; max_nodes: number; include_files: boolean }) {
    return graphViews.graphml(this, opts);
  }

  visualize(opts: { path_prefix: string | null; max_nodes: number; title: string | null }) {
    return graphViews.visualize(this, opts);
  }

  contextRender(opts: { symbols: string[]; files: string[]; token_budget: number; include_dependencies: boolean }) {
    return textViews.contextRender(this, opts);
  }

  capsule(opts: { token_budget: number; query: string | null; top: number }) {
    return textViews.capsule(this, opts);
  }

  editPlan(opts: { request: string; max_files: number; max_symbols: number; depth: number }) {
    return editPlan.editPlan(this, opts);
  }

  scan(opts: { packs: Pack[] | null; rules: string[] | null; path_prefix: string | null; min_severity: Severity; suppressed: string[]; limit: number }) {
    return findings.scan(this, opts);
  }

  reachIds(focus: string, reverse: boolean): string[] {
    return queries.reachIds(this, focus, reverse);
  }

  edgeList(): string[] {
    return queries.edgeList(this);
  }
}
