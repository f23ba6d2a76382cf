// gc_scan: static rule packs over the indexed repository's file contents (run in the
// code-intelligence thread, which holds every file's text). Line-based rules with a cheap
// whole-file prefilter; a finding groups the occurrences of one rule with the same normalised
// evidence in one file, and its fingerprint is a hash of (rule id, path, normalised evidence):
// stable across runs and when unrelated lines move the occurrence to another line number.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { splitIdentifier } from '../code/text.js';

import { RULE_IDS, type Pack, type RuleId, type Severity } from '../shared/codeScanRules.js';
export { PACKS, RULE_IDS, type Pack, type RuleId, type Severity } from '../shared/codeScanRules.js';

export const SEVERITY_ORDER: Record<Severity, number> = { low: 0, medium: 1, high: 2, critical: 3 };

const PY = new Set(['python']);
const JS = new Set(['javascript', 'typescript', 'tsx']);
const JAVA = new Set(['java', 'kotlin', 'scala']);

interface LineCtx {
  path: string;
  language: string;
  lines: string[];
  /** 0-based index of the line. */
  i: number;
  /** Names assigned from user input earlier in the file (path traversal). */
  tainted: Set<string>;
}

interface Rule {
  id: RuleId;
  pack: Pack;
  severity: Severity;
  message: string;
  /** Languages the rule applies to; undefined = every language. */
  languages?: Set<string>;
  /** Cheap whole-file test; the line test runs only when it passes. */
  prefilter: RegExp;
  /** Column of the match on this line, or -1. */
  test(line: string, ctx: LineCtx): number;
  /** Whether the rule also looks at comment lines (secrets in comments are still leaked). */
  inComments?: boolean;
  /** Masks secrets in the evidence shown (the fingerprint hashes the unmasked line). */
  mask?: boolean;
}

/** First match column of `re` on `line` when `ok` (if given) accepts the match, else -1. */
function at(re: RegExp, line: string, ok?: (m: RegExpExecArray) => boolean): number {
  const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
  for (let m = g.exec(line); m; m = g.exec(line)) {
    if (!ok || ok(m)) return m.index;
    if (m[0].length === 0) g.lastIndex++;
  }
  return -1;
}

/** Shannon entropy (bits per character) of a string. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

const PLACEHOLDER = /^(?:x+|\*+|\.+|-+|changeme|change_me|password|passwd|secret|token|example|sample|dummy|test|testing|placeholder|redacted|none|null|undefined|todo|your[_-]?\w*|<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|%\(?\w*\)?s|process\.env\.\w+)$/i;

const SECRET_WORDS = new Set(['password', 'passwd', 'pwd', 'secret', 'secrets', 'token', 'credential', 'credentials', 'apikey', 'passphrase']);
const KEY_QUALIFIERS = new Set(['api', 'access', 'auth', 'private', 'secret', 'signing', 'encryption', 'client']);

/** Whether a name says it holds a secret, by its words (`DB_PASSWORD`, `apiKey`, `client_secret`; not `TokenizerName`). */
function secretName(name: string): boolean {
  const words = splitIdentifier(name.replace(/[^A-Za-z0-9_]/g, '_'));
  return words.some((w, i) => SECRET_WORDS.has(w) || (w === 'key' && i > 0 && KEY_QUALIFIERS.has(words[i - 1]!)));
}

/** A literal secret value: long enough, not a placeholder or a reference, and random-looking. */
function secretValue(v: string): boolean {
  if (v.length < 8 || PLACEHOLDER.test(v) || /^\$\{|^\{\{|^%\(|^env:|^vault:/i.test(v) || /\s/.test(v)) return false;
  if (/\$\{|\{\w*\}|%[sd]/.test(v)) return false; // built at run time (template, format string), not a literal secret
  if (/^[a-z]+(?:[_-][a-z]+)*$/.test(v)) return false; // a word or a snake/kebab name, not a secret
  return entropy(v) >= 3.0 && /\d/.test(v) || entropy(v) >= 3.5;
}

const SQL = /\b(?:select\s+[\w*,\s.()]+?\s+from|insert\s+into|update\s+\w+\s+set|delete\s+from|drop\s+(?:table|database)|create\s+table|alter\s+table)\b/i;
const USER_INPUT = /\b(?:request\.(?:args|form|values|files|json|GET|POST|data|cookies|query_params|params|headers)|req\.(?:params|query|body|headers|cookies)|ctx\.(?:params|query|request\.body)|\$_(?:GET|POST|REQUEST|COOKIE)|getParameter\s*\(|params\[)/;
const PATH_SINK = /(?<![\w.])(?:open|file_get_contents|fopen|send_file|FileResponse)\s*\(|\bos\.path\.join\s*\(|\bpath\.(?:join|resolve)\s*\(|\bfs\.(?:readFile|readFileSync|writeFile|writeFileSync|createReadStream|createWriteStream|unlink|unlinkSync)\s*\(|\bres\.(?:sendFile|download)\s*\(|\bnew\s+File(?:InputStream|OutputStream|Reader)?\s*\(|\bPaths\.get\s*\(|\bfilepath\.Join\s*\(|\bos\.(?:Open|ReadFile|Create)\s*\(|\bioutil\.ReadFile\s*\(|\bPath\s*\(/;
const PATH_SANITISED = /\b(?:secure_filename|basename|send_from_directory|safe_join|normalize_path|realpath)\s*\(|\.startsWith\s*\(|\.startswith\s*\(/;
const CRYPTO_CONTEXT = /passw|passwd|pwd|secret|credential/i;
const TOKEN_CONTEXT = /token|secret|passw|nonce|salt|session|otp|api_?key|reset|csrf|auth/i;

const STR = '(?:[rRbBuU]{1,2})?(?:"""[\\s\\S]*?"""|\'\'\'[\\s\\S]*?\'\'\'|"(?:[^"\\\\]|\\\\.)*"|\'(?:[^\'\\\\]|\\\\.)*\'|`[^`$]*`)';
/**
 * A first argument that is not built from values: no argument at all, a string literal (`("ls -l")`,
 * `(cmd="exit 0")`), or a list of string literals (`(["ls", "-l"])`).
 */
const LITERAL_ARG = new RegExp(String.raw`^\(\s*(?:\)|(?:\w+\s*=\s*)?${STR}\s*[,)]|\[\s*(?:${STR}\s*,?\s*)*\]\s*[,)])`);
/** Interpolation or concatenation on a line: f-string, template `${`, `+` next to a string, `%` formatting, `.format(`. */
const INTERPOLATED = /\bf["']|`[^`]*\$\{|["'`]\s*\+|\+\s*["'`]|["']\s*%\s*[\w(]|\.format\s*\(|\bfmt\.Sprintf\s*\(|\bString\.format\s*\(/;

const RULES: Rule[] = [
  // ---- secrets ----
  {
    id: 'secrets.aws-access-key',
    pack: 'secrets',
    severity: 'critical',
    message: 'AWS access key id in the source',
    prefilter: /A[KS]IA[0-9A-Z]{16}/,
    test: (l) => at(/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/, l, (m) => !/EXAMPLE/.test(m[0])),
    inComments: true,
    mask: true,
  },
  {
    id: 'secrets.private-key',
    pack: 'secrets',
    severity: 'critical',
    message: 'Private key block in the source',
    prefilter: /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
    test: (l) => at(/-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY-----/, l),
    inComments: true,
  },
  {
    id: 'secrets.provider-token',
    pack: 'secrets',
    severity: 'critical',
    message: 'Service token (GitHub, Slack, Stripe live, Google API or this service) in the source',
    prefilter: /gh[pousr]_|xox[abprs]-|sk_live_|rk_live_|AIza|gc_[0-9a-f]{32}/,
    test: (l) => at(/\b(?:gh[pousr]_[A-Za-z0-9]{36,}|xox[abprs]-[A-Za-z0-9-]{10,}|[sr]k_live_[0-9A-Za-z]{20,}|AIza[0-9A-Za-z_-]{35}|gc_[0-9a-f]{32})\b/, l),
    inComments: true,
    mask: true,
  },
  {
    id: 'secrets.hardcoded-credential',
    pack: 'secrets',
    severity: 'high',
    message: 'Hard-coded credential: a password, secret, token or API key assigned a literal value',
    prefilter: /passw|pwd|secret|token|api_?key|apikey|access_?key|credential|private_?key/i,
    test: (l) =>
      at(
        /["']?\b([\w-]{0,40}(?:password|passwd|pwd|secret|token|api_?key|apikey|access_?key|auth_?key|credential|private_?key|passphrase)[\w-]{0,40})["']?\s*(?::=|[:=]|=>)\s*(?:[A-Za-z_]\w*\()?["'`]([^"'`]{8,})["'`]/i,
        l,
        (m) => secretName(m[1]!) && secretValue(m[2]!),
      ),
    inComments: true,
    mask: true,
  },
  // ---- injection ----
  {
    id: 'injection.sql-string-building',
    pack: 'injection',
    severity: 'high',
    message: 'SQL built from strings (concatenation, f-string, template or % / format): use bound parameters',
    prefilter: /select|insert|update|delete|drop|create|alter/i,
    test: (l) => {
      const sql = SQL.exec(l);
      if (!sql) return -1;
      return INTERPOLATED.test(l) ? sql.index : -1;
    },
  },
  {
    id: 'injection.shell-command',
    pack: 'injection',
    severity: 'high',
    message: 'Shell command built from a value (os.system, shell=True, child_process.exec, Runtime.exec, sh -c): pass an argument list without a shell',
    prefilter: /system|popen|shell\s*=\s*True|exec|Command/,
    test: (l, ctx) => {
      if (PY.has(ctx.language)) {
        const sys = at(/\bos\.(?:system|popen)\s*\(/, l, (m) => !LITERAL_ARG.test(l.slice(m.index + m[0].length - 1)));
        if (sys >= 0) return sys;
        if (/shell\s*=\s*True/.test(l)) return at(/\bsubprocess\.\w+\s*\(/, l, (m) => !LITERAL_ARG.test(l.slice(m.index + m[0].length - 1)));
        return -1;
      }
      if (JS.has(ctx.language)) return at(/(?<![\w.])(?:child_process\.)?exec(?:Sync)?\s*\(|\bchild_process\.exec(?:Sync)?\s*\(|\bshell\.exec\s*\(/, l, (m) => !LITERAL_ARG.test(l.slice(m.index + m[0].length - 1)));
      if (JAVA.has(ctx.language)) return at(/\bRuntime\.getRuntime\(\)\.exec\s*\(|\bnew\s+ProcessBuilder\s*\(/, l, () => INTERPOLATED.test(l) || /"(?:sh|bash|cmd)"\s*,\s*"(?:-c|\/c)"/.test(l));
      if (ctx.language === 'go') return at(/\bexec\.Command\s*\(\s*"(?:sh|bash)"\s*,\s*"-c"\s*,/, l, () => !/,\s*"-c"\s*,\s*"[^"]*"\s*\)/.test(l));
      return at(/(?<![\w.])(?:system|popen)\s*\(/, l, (m) => !LITERAL_ARG.test(l.slice(m.index + m[0].length - 1)));
    },
  },
  {
    id: 'injection.eval',
    pack: 'injection',
    severity: 'high',
    message: 'Code evaluated from a value (eval, exec, new Function)',
    prefilter: /eval|exec|Function/,
    test: (l, ctx) => {
      const dynamic = (m: RegExpExecArray) => {
        const rest = l.slice(m.index + m[0].length - 1);
        return !LITERAL_ARG.test(rest) && !/^\(\s*\)/.test(rest);
      };
      if (PY.has(ctx.language)) return at(/(?<![\w.])(?:eval|exec)\s*\(/, l, dynamic);
      if (JS.has(ctx.language)) return at(/(?<![\w.$])eval\s*\(|\bnew\s+Function\s*\(|\bset(?:Timeout|Interval)\s*\(\s*["'`][^"'`]*["'`]\s*\+/, l, (m) => (m[0].startsWith('set') ? true : dynamic(m)));
      return at(/(?<![\w.$>:])eval\s*\(/, l, dynamic);
    },
  },
  // ---- deserialization ----
  {
    id: 'deserialization.pickle',
    pack: 'deserialization',
    severity: 'high',
    message: 'Unsafe deserialization: pickle/marshal/dill loads execute code from the data',
    languages: PY,
    prefilter: /pickle|marshal|dill|shelve/,
    // A round trip on one line (`pickle.loads(pickle.dumps(x))`) reads back the process's own bytes: not flagged.
    test: (l) => at(/\b(?:c?[Pp]ickle|_pickle|dill|marshal)\.(?:loads?|Unpickler)\s*\(|\bshelve\.open\s*\(/, l, (m) => !/^\s*(?:[\w.]+\.)?dumps?\s*\(/.test(l.slice(m.index + m[0].length))),
  },
  {
    id: 'deserialization.yaml-load',
    pack: 'deserialization',
    severity: 'high',
    message: 'yaml.load without SafeLoader constructs arbitrary objects: use yaml.safe_load or Loader=SafeLoader',
    languages: PY,
    prefilter: /yaml/,
    test: (l) => {
      const unsafe = at(/\byaml\.(?:unsafe_load|unsafe_load_all)\s*\(|Loader\s*=\s*(?:yaml\.)?(?:Unsafe)?Loader\b|Loader\s*=\s*(?:yaml\.)?FullLoader\b/, l);
      if (unsafe >= 0) return unsafe;
      return at(/\byaml\.load(?:_all)?\s*\(/, l, () => !/Loader\s*=/.test(l));
    },
  },
  {
    id: 'deserialization.java-object-stream',
    pack: 'deserialization',
    severity: 'high',
    message: 'Java native deserialization (ObjectInputStream.readObject, XMLDecoder) of untrusted data runs gadget chains',
    languages: JAVA,
    prefilter: /ObjectInputStream|XMLDecoder/,
    test: (l) => at(/\bnew\s+(?:ObjectInputStream|XMLDecoder)\s*\(/, l),
  },
  {
    id: 'deserialization.node-serialize',
    pack: 'deserialization',
    severity: 'critical',
    message: 'node-serialize unserialize() evaluates functions in the payload (remote code execution)',
    languages: JS,
    prefilter: /serialize/,
    test: (l) => at(/\brequire\s*\(\s*["'](?:node-serialize|serialize-to-js)["']\s*\)|\bfrom\s+["'](?:node-serialize|serialize-to-js)["']|(?<![\w$])unserialize\s*\(|\.unserialize\s*\(/, l),
  },
  // ---- path traversal ----
  {
    id: 'path-traversal.user-input-path',
    pack: 'path-traversal',
    severity: 'high',
    message: 'User input joined into a file path without sanitising (../ escapes the base directory)',
    prefilter: /request|req\.|ctx\.|\$_|getParameter|params\[/,
    test: (l, ctx) => {
      if (PATH_SANITISED.test(l) || /^\s*(?:async\s+)?(?:def|function|func|fn)\s/.test(l)) return -1;
      const sink = PATH_SINK.exec(l);
      if (!sink) return -1;
      const after = l.slice(sink.index);
      if (USER_INPUT.test(after)) return sink.index;
      for (const name of ctx.tainted) if (new RegExp(`(?<![\\w.$])${name}(?![\\w$])`).test(after)) return sink.index;
      return -1;
    },
  },
  // ---- weak crypto ----
  {
    id: 'weak-crypto.weak-password-hash',
    pack: 'weak-crypto',
    severity: 'high',
    message: 'MD5/SHA-1 used on a password or secret: use bcrypt, scrypt, argon2 or PBKDF2',
    prefilter: /md5|sha1|SHA-1|MD5/i,
    test: (l, ctx) => {
      const col = at(/\bhashlib\.(?:md5|sha1)\s*\(|\bhashlib\.new\s*\(\s*["'](?:md5|sha1)["']|\bcreateHash\s*\(\s*["'](?:md5|sha1)["']|\bMessageDigest\.getInstance\s*\(\s*"(?:MD5|SHA-?1)"|\b(?:md5|sha1)\s*\(|\bDigestUtils\.(?:md5|sha1)\w*\s*\(|\b(?:md5|sha1)\.(?:New|Sum)\s*\(/i, l);
      if (col < 0) return -1;
      const near = ctx.lines.slice(Math.max(0, ctx.i - 2), ctx.i + 3).join('\n');
      return CRYPTO_CONTEXT.test(near) ? col : -1;
    },
  },
  {
    id: 'weak-crypto.des',
    pack: 'weak-crypto',
    severity: 'high',
    message: 'DES / 3DES cipher: broken or deprecated, use AES-GCM or ChaCha20-Poly1305',
    prefilter: /DES|des-|des3|RC4|rc4/,
    test: (l) => at(/\b(?:DES3?|ARC4)\.new\s*\(|\balgorithms\.(?:TripleDES|ARC4)\s*\(|Cipher\.getInstance\s*\(\s*"(?:DES|DESede|RC4)\b|\bcreateCipher(?:iv)?\s*\(\s*["'](?:des|des3|des-ede3?|des-[\w-]+|rc4)["']|\bdes\.NewCipher\s*\(|\bdes\.NewTripleDESCipher\s*\(/, l),
  },
  {
    id: 'weak-crypto.ecb-mode',
    pack: 'weak-crypto',
    severity: 'medium',
    message: 'ECB mode leaks plaintext patterns: use an authenticated mode (GCM)',
    prefilter: /ECB|ecb|getInstance/,
    test: (l) => at(/\bMODE_ECB\b|\bmodes\.ECB\s*\(|"[A-Za-z0-9]+\/ECB\/|["']aes-\d{3}-ecb["']|Cipher\.getInstance\s*\(\s*"AES"\s*\)/, l),
  },
  {
    id: 'weak-crypto.insecure-random-token',
    pack: 'weak-crypto',
    severity: 'medium',
    message: 'Non-cryptographic random used for a token, password, nonce or session id: use crypto.randomBytes / secrets',
    prefilter: /Math\.random|random\.|rand\(|rand\.|new Random/,
    test: (l, ctx) => {
      const col = JS.has(ctx.language)
        ? at(/\bMath\.random\s*\(/, l)
        : PY.has(ctx.language)
          ? at(/(?<![\w.])random\.(?:random|randint|choice|choices|getrandbits|randrange|sample)\s*\(/, l)
          : at(/\bnew\s+Random\s*\(|(?<![\w.])rand\s*\(\s*\)|\bmath\/rand\b|\brand\.(?:Int|Intn|Read)\s*\(/, l);
      if (col < 0) return -1;
      // The statement's own line and the one before (a `def make_token():` header, an assignment split in two).
      const near = ctx.lines.slice(Math.max(0, ctx.i - 1), ctx.i + 1).join('\n');
      return TOKEN_CONTEXT.test(near) ? col : -1;
    },
  },
];

// Every catalogued id has its rule (the type checks the converse).
for (const id of RULE_IDS) if (!RULES.some((r) => r.id === id)) throw new Error(`code scan: rule ${id} is catalogued but not defined`);

/**
 * Version of the rules: a hash of this module's own text, so any change to a rule, a pattern or the
 * grouping retires findings stored by an earlier build (they are recomputed on the next scan).
 */
export const SCAN_VERSION: string = createHash('sha256').update(readFileSync(fileURLToPath(import.meta.url))).digest('hex').slice(0, 16);

/** Findings of one file as stored with its analysis at ingest (computed in the pool). */
export interface StoredScan {
  version: string;
  findings: ScanFinding[];
}

export function rulesOf(packs: readonly Pack[] | null): Array<{ id: string; pack: Pack; severity: Severity; message: string }> {
  return RULES.filter((r) => !packs || packs.includes(r.pack)).map((r) => ({ id: r.id, pack: r.pack, severity: r.severity, message: r.message }));
}

export interface ScanMatch {
  line: number;
  column: number;
}

export interface ScanFinding {
  rule_id: string;
  pack: Pack;
  severity: Severity;
  message: string;
  fingerprint: string;
  path: string;
  /** Occurrences of this evidence in the file (1-based line and column). */
  matches: ScanMatch[];
  files: string[];
  /** The matching line, trimmed; secrets masked. */
  evidence: string;
  status: 'open' | 'suppressed';
}

const COMMENT = /^\s*(?:#(?!include|define|if|pragma|!)|\/\/|\/\*|\*|--\s|;)/;

/** Whitespace collapsed: what the fingerprint hashes (indentation and spacing changes keep it). */
export function normaliseEvidence(line: string): string {
  return line.trim().replace(/\s+/g, ' ');
}

function maskSecrets(line: string): string {
  return line.replace(/(["'`])([^"'`\s]{8,})\1/g, (all, q: string, v: string) => {
    if (entropy(v) < 3.0) return all;
    return `${q}${v.slice(0, 4)}${'*'.repeat(Math.max(4, Math.min(12, v.length - 6)))}${v.slice(-2)}${q}`;
  }).replace(/\b(?:AKIA|ASIA|gh[pousr]_|xox[abprs]-|[sr]k_live_|AIza|gc_)[A-Za-z0-9_-]{8,}/g, (v) => `${v.slice(0, 4)}${'*'.repeat(12)}`);
}

export function fingerprint(ruleId: string, path: string, evidence: string): string {
  return createHash('sha256').update(`${ruleId}\u0000${path}\u0000${evidence}`).digest('hex').slice(0, 32);
}

/** Names assigned from user input (`name = request.args.get("f")`, `const f = req.query.file`). */
function taintedNames(lines: string[]): Set<string> {
  const out = new Set<string>();
  for (const l of lines) {
    if (!USER_INPUT.test(l)) continue;
    const m = /^\s*(?:(?:const|let|var|final|String|val)\s+)?([A-Za-z_$][\w$]*)\s*(?::\s*[\w<>[\]]+\s*)?(?::=|=)(?!=)/.exec(l);
    if (m && !PATH_SANITISED.test(l)) out.add(m[1]!);
  }
  return out;
}

/** Every finding of the given packs in one file. */
export function scanFile(path: string, language: string, content: string, packs: readonly Pack[] | null = null): ScanFinding[] {
  const rules = RULES.filter((r) => (!packs || packs.includes(r.pack)) && (!r.languages || r.languages.has(language)) && r.prefilter.test(content));
  if (rules.length === 0) return [];
  const lines = content.split('\n');
  const ctx: LineCtx = { path, language, lines, i: 0, tainted: rules.some((r) => r.pack === 'path-traversal') ? taintedNames(lines) : new Set() };
  const byKey = new Map<string, ScanFinding>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.length > 4000) continue; // minified or data lines
    ctx.i = i;
    const comment = COMMENT.test(line);
    for (const r of rules) {
      if (comment && !r.inComments) continue;
      if (r.pack !== 'path-traversal' && !r.prefilter.test(line)) continue;
      const col = r.test(line, ctx);
      if (col < 0) continue;
      const norm = normaliseEvidence(line);
      const key = `${r.id}\u0000${norm}`;
      let f = byKey.get(key);
      if (!f) {
        const shown = norm.length > 240 ? `${norm.slice(0, 240)}…` : norm;
        f = {
          rule_id: r.id,
          pack: r.pack,
          severity: r.severity,
          message: r.message,
          fingerprint: fingerprint(r.id, path, norm),
          path,
          matches: [],
          files: [path],
          evidence: r.mask ? maskSecrets(shown) : shown,
          status: 'open',
        };
        byKey.set(key, f);
      }
      f.matches.push({ line: i + 1, column: col + 1 });
    }
  }
  return [...byKey.values()];
}
