// search_code on the Python standard library: natural-language developer questions, each with the
// definition that answers it (path:qualified), split into a fixed dev half (odd lines) and test half
// (even lines). Prints recall@5 and MRR@10 of BM25 alone and of BM25 fused with the embeddings at
// several dense weights; the weight in workers/codeIntel/semantic.ts is the dev half's best.
//
//   npm run build && node dist/bench/codeintel/search.js
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { analyzeFile } from '../../workers/code/index.js';
import { RepoIndex } from '../../workers/codeIntel/repoIndex.js';
import { SEARCH_RRF_WEIGHTS, UnitVectors } from '../../workers/codeIntel/semantic.js';
import { SMOKE, sized } from '../lib/smoke.js';

/** [question, answer as path:qualified]. Written as a developer would ask, not copied from docstrings. */
export const QUESTIONS: Array<[string, string]> = [
  ['recursively duplicate a directory with all its contents', 'shutil.py:copytree'],
  ['delete a folder and everything inside it', 'shutil.py:rmtree'],
  ['find where an executable program lives on the PATH', 'shutil.py:which'],
  ['create nested directories including missing parents', 'os.py:makedirs'],
  ['turn a JSON string into python objects', 'json/__init__.py:loads'],
  ['serialize an object to JSON text', 'json/__init__.py:dumps'],
  ['split a URL into scheme, host and path', 'urllib/parse.py:urlparse'],
  ['percent-encode special characters for use in a URL', 'urllib/parse.py:quote'],
  ['encode binary data as base64', 'base64.py:b64encode'],
  ['break a long paragraph into lines of a maximum width', 'textwrap.py:wrap'],
  ['strip the common indentation from every line of a block of text', 'textwrap.py:dedent'],
  ['show the differences between two files as a unified patch', 'difflib.py:unified_diff'],
  ['suggest similar words for a misspelled string', 'difflib.py:get_close_matches'],
  ['randomly reorder a list in place', 'random.py:Random.shuffle'],
  ['pick one element at random from a sequence', 'random.py:Random.choice'],
  ['middle value of a dataset', 'statistics.py:median'],
  ['sample standard deviation of numbers', 'statistics.py:stdev'],
  ['make a temporary directory securely', 'tempfile.py:mkdtemp'],
  ['temporary file that has a visible name on disk', 'tempfile.py:NamedTemporaryFile'],
  ['list files matching a wildcard pattern', 'glob.py:glob'],
  ['test whether a filename matches a shell-style pattern', 'fnmatch.py:fnmatch'],
  ['read CSV rows as dictionaries keyed by the header', 'csv.py:DictReader'],
  ['unpack every member of a zip archive', 'zipfile.py:ZipFile.extractall'],
  ['extract all files from a tar archive', 'tarfile.py:TarFile.extractall'],
  ['compress bytes in memory with gzip', 'gzip.py:compress'],
  ['execute a command and wait until it finishes', 'subprocess.py:run'],
  ['run a program and capture what it prints', 'subprocess.py:check_output'],
  ['split a shell command line into arguments respecting quotes', 'shlex.py:split'],
  ['capitalize each word of a sentence', 'string.py:capwords'],
  ['the n biggest items of a collection', 'heapq.py:nlargest'],
  ['cache the results of an expensive function', 'functools.py:lru_cache'],
  ['decorator that copies the name and docstring of the wrapped function', 'functools.py:wraps'],
  ['clone an object together with every nested object', 'copy.py:deepcopy'],
  ['get the parameters of a callable', 'inspect.py:signature'],
  ['parse an IPv4 or IPv6 address string', 'ipaddress.py:ip_address'],
  ['extract the real name and mail address from an email header', 'email/utils.py:parseaddr'],
  ['send an email message through a mail server', 'smtplib.py:SMTP.sendmail'],
  ['generate a random unique identifier', 'uuid.py:uuid4'],
  ['random hexadecimal string for a security token', 'secrets.py:token_hex'],
  ['is a given year a leap year', 'calendar.py:isleap'],
  ['pretty-print a nested data structure into a string', 'pprint.py:pformat'],
  ['set up logging quickly with a default handler', 'logging/__init__.py:basicConfig'],
  ['define a command line option for a program', 'argparse.py:_ActionsContainer.add_argument'],
  ['read the whole contents of a file path as text', 'pathlib.py:Path.read_text'],
  ['take the next item off a thread-safe queue, waiting if empty', 'queue.py:Queue.get'],
  ['open a web page and read the response', 'urllib/request.py:urlopen'],
  ['escape characters that are special in HTML', 'html/__init__.py:escape'],
  ['convert a string of words into a URL query string', 'urllib/parse.py:urlencode'],
];

const LATENCY_QUERIES = sized(200, 2);
const stdlib = execFileSync('python3', ['-c', "import sysconfig;print(sysconfig.get_paths()['stdlib'])"], { encoding: 'utf8' }).trim();

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    if (name === 'site-packages' || name === '__pycache__' || name === 'test' || name === 'tests') continue;
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) walk(p, out);
    else if (name.endsWith('.py')) out.push(p);
  }
}

interface Scores {
  recall5: number;
  mrr10: number;
}

function score(ranked: string[][], answers: string[]): Scores {
  let hit = 0;
  let rr = 0;
  ranked.forEach((r, q) => {
    const at = r.indexOf(answers[q]!);
    if (at >= 0 && at < 5) hit++;
    if (at >= 0 && at < 10) rr += 1 / (at + 1);
  });
  return { recall5: hit / ranked.length, mrr10: rr / ranked.length };
}

async function main() {
  const paths: string[] = [];
  walk(stdlib, paths);
  // Smoke: only the files that hold an answer.
  if (SMOKE) paths.splice(0, paths.length, ...paths.filter((p) => QUESTIONS.some(([, a]) => a.startsWith(`${relative(stdlib, p)}:`))));
  const t0 = performance.now();
  const analyses = paths.sort().map((p) => analyzeFile({ path: relative(stdlib, p), content: readFileSync(p, 'utf8') }));
  const idx = new RepoIndex();
  idx.apply(analyses, []);
  const vectors = new UnitVectors();
  const t1 = performance.now();
  const aligned = await vectors.align(idx.searchTexts());
  const embedMs = performance.now() - t1;
  console.log(`corpus: ${stdlib} (${paths.length} files without tests, ${idx.size.units} definitions); parse+index ${((t1 - t0) / 1000).toFixed(1)} s, embedding every definition ${embedMs.toFixed(0)} ms`);
  const missing = QUESTIONS.filter(([, a]) => idx.resolve(a).length === 0).map(([, a]) => a);
  if (missing.length) throw new Error(`answers not in the index: ${missing.join(', ')}`);

  const halves = { dev: QUESTIONS.filter((_, i) => i % 2 === 0), test: QUESTIONS.filter((_, i) => i % 2 === 1) };
  const dense = new Map<string, Array<[number, number]>>();
  for (const [q] of QUESTIONS) dense.set(q, await UnitVectors.nearest(q, aligned));
  const key = (r: { path: string; qualified: string }) => `${r.path}:${r.qualified}`;
  const run = (set: Array<[string, string]>, weight: number | null) =>
    score(
      set.map(([q]) => idx.search(q, 10, weight === null ? undefined : dense.get(q), { lexical: 1, dense: weight ?? 0 }).results.map(key)),
      set.map(([, a]) => a),
    );
  const weights = [0.1, 0.2, 0.35, 0.5, 0.75, 1];
  console.log('\n| ranking | dev recall@5 | dev MRR@10 | test recall@5 | test MRR@10 |\n|---|---|---|---|---|');
  const row = (name: string, w: number | null) => {
    const d = run(halves.dev, w);
    const t = run(halves.test, w);
    console.log(`| ${name} | ${d.recall5.toFixed(3)} | ${d.mrr10.toFixed(3)} | ${t.recall5.toFixed(3)} | ${t.mrr10.toFixed(3)} |`);
    return d;
  };
  row('BM25 alone', null);
  let best = { w: 0, dev: -1 };
  for (const w of weights) {
    const d = row(`BM25 + embeddings, dense weight ${w}`, w);
    const s = d.recall5 + d.mrr10 / 100;
    if (s > best.dev) best = { w, dev: s };
  }
  console.log(`\ndev's best dense weight: ${best.w} (shipped: ${SEARCH_RRF_WEIGHTS.dense}); ${halves.dev.length} dev / ${halves.test.length} test questions`);

  const lat: number[] = [];
  for (let i = 0; i < LATENCY_QUERIES; i++) {
    const [q] = QUESTIONS[i % QUESTIONS.length]!;
    const s = performance.now();
    idx.search(q, 20, await UnitVectors.nearest(q, aligned));
    lat.push(performance.now() - s);
  }
  lat.sort((a, b) => a - b);
  console.log(`hybrid search latency in the index thread (${LATENCY_QUERIES} queries): p50 ${lat[lat.length >> 1]!.toFixed(1)} ms, p99 ${lat[Math.floor(lat.length * 0.99) - 1]!.toFixed(1)} ms`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
