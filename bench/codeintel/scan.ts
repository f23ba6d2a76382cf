// gc_scan's rule packs over real code: findings per rule, scan time, and a sample of each rule's
// findings to read by hand (precision is judged by reading them; the counts say where to look).
//
//   npm run build && node dist/bench/codeintel/scan.js [dir ...]
//   default: the Python standard library and this repository's src/ and workers/
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { packageRoot } from '../../src/lib/root.js';
import { languageFromFilename } from '../../workers/code/languages.js';
import { scanFile, type ScanFinding } from '../../workers/codeIntel/scan.js';
import { SMOKE, sized } from '../lib/smoke.js';

const SKIP = new Set(['node_modules', '.git', 'dist', '__pycache__', 'site-packages', 'data']);

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) walk(p, out);
    else if (languageFromFilename(name) && st.size < 1_000_000) out.push(p);
  }
}

function corpus(label: string, roots: string[]) {
  const paths: string[] = [];
  for (const r of roots) walk(r, paths);
  let chars = 0;
  const findings: ScanFinding[] = [];
  const t0 = performance.now();
  for (const p of paths) {
    let content: string;
    try {
      content = readFileSync(p, 'utf8');
    } catch {
      continue;
    }
    chars += content.length;
    findings.push(...scanFile(relative(roots[0]!, p), languageFromFilename(p)!, content));
  }
  const ms = performance.now() - t0;
  const byRule = new Map<string, ScanFinding[]>();
  for (const f of findings) byRule.set(f.rule_id, [...(byRule.get(f.rule_id) ?? []), f]);
  console.log(`\n## ${label}: ${paths.length} files, ${(chars / 1e6).toFixed(1)} M characters, scanned in ${Math.round(ms)} ms, ${findings.length} findings`);
  for (const [rule, list] of [...byRule].sort((a, b) => b[1].length - a[1].length)) {
    console.log(`- ${rule}: ${list.length}`);
    for (const f of list.slice(0, Number(process.env.SAMPLE ?? 4))) console.log(`    ${f.path}:${f.matches[0]!.line}  ${f.evidence.slice(0, 140)}`);
  }
}

/** Adversarial lines (a rule's keyword, then 4,000 characters of one filler): the slowest rule/line shape, in ms per line. */
function worstLines() {
  const bases = ['password = "', 'token: `', 'select a from t where x = "', 'os.system("', 'subprocess.run(f"', 'yaml.load(', 'name = request.args.get(1)\nopen(name', 'pickle.loads(', 'password', 'select a from ', 'request.args ', 'os.system(', 'eval(', 'md5(', 'Math.random() token', "'", '"', '`${', 'AKIA', 'open(', '-----BEGIN '];
  const fills = ['password ', 'a "', '" + a', 'x = "', 'a', 'a_', ' ', "'", '"', 'a-', '(', '[', '\\', 'password'];
  let worst = 0;
  let which = '';
  for (const lang of sized(['python', 'javascript', 'java', 'go'], ['python'])) {
    for (const b of bases.slice(0, sized(Infinity, 2))) {
      for (const f of fills.slice(0, sized(Infinity, 2))) {
        const line = (b + f.repeat(4000)).slice(0, 3999);
        const content = Array(20).fill(line).join('\n');
        const t = performance.now();
        scanFile('x', lang, content);
        const ms = (performance.now() - t) / 20;
        if (ms > worst) [worst, which] = [ms, `${lang}: ${JSON.stringify(b)} + ${JSON.stringify(f)} × n`];
      }
    }
  }
  console.log(`\n## adversarial lines: ${4 * bases.length * fills.length} shapes of 4,000 characters; slowest ${worst.toFixed(1)} ms per line (${which})`);
}

const args = process.argv.slice(2);
if (args.length) corpus(args.join(' '), args);
else {
  const stdlib = execFileSync('python3', ['-c', "import sysconfig;print(sysconfig.get_paths()['stdlib'])"], { encoding: 'utf8' }).trim();
  // Smoke: one package of each corpus.
  corpus(sized('Python standard library', 'Python standard library, json/'), [SMOKE ? join(stdlib, 'json') : stdlib]);
  const root = packageRoot();
  corpus(sized('this repository (src/, workers/)', 'this repository (src/lib/)'), SMOKE ? [join(root, 'src', 'lib')] : [join(root, 'src'), join(root, 'workers')]);
}
worstLines();
