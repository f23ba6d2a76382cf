import { LANGUAGES, languageFromFilename, normalizeLanguage } from './languages.js';
import { countErrors, parse } from './parse.js';
import { looksLikeHtml } from '../text/html.js';

/** Content signals per grammar; they only shortlist candidates, the parse with fewest errors decides. */
const SIGNALS: Record<string, RegExp[]> = {
  python: [/^\s*def\s+\w+\s*\(.*\)\s*(->.*)?:\s*$/m, /^\s*(from\s+[\w.]+\s+import|import\s+\w+)\s*$/m, /^\s*class\s+\w+(\(.*\))?:\s*$/m, /\bself\./, /^\s*@\w+/m, /"""/, /^\s*elif\b/m],
  javascript: [/\bfunction\s+\w*\s*\(/, /\b(const|let|var)\s+\w+\s*=/, /=>/, /\brequire\(|module\.exports|export\s+default/, /console\.\w+\(/, /;\s*$/m],
  typescript: [/:\s*(string|number|boolean|void|any|unknown)\b/, /\binterface\s+\w+\s*(extends\s+[\w, <>]+)?\{/, /^\s*(export\s+)?type\s+\w+(<.*>)?\s*=/m, /import\s+.*\s+from\s+['"]/, /\b(private|public|readonly)\s+\w+\s*[:(]/, /<\w+>\(/],
  tsx: [/return\s*\(\s*</, /<\/\w+>/, /\/>/, /className=/],
  java: [/^\s*package\s+[\w.]+;/m, /\b(public|private|protected)\s+(static\s+)?(final\s+)?(class|interface|void|int|String|boolean)\b/, /System\.out\./, /^\s*import\s+(static\s+)?[\w.]+(\.\*)?;/m, /@Override/],
  go: [/^package\s+\w+\s*$/m, /\bfunc\s+(\([^)]*\)\s*)?\w+\s*\(/, /:=/, /^import\s*\(/m, /\bfmt\./],
  rust: [/\bfn\s+\w+/, /\blet\s+(mut\s+)?\w+/, /\bimpl(<.*>)?\s+\w+/, /\bpub\s+(fn|struct|enum|mod|crate)\b/, /^\s*use\s+[\w:]+/m, /->\s*\w+/, /&(mut\s+)?self\b/, /#\[\w+/],
  c: [/^#include\s*[<"][\w/]+\.h[>"]/m, /\b(int|void|char|unsigned|static)\s+\*?\w+\s*\([^)]*\)\s*\{/, /\b(printf|malloc|free|sizeof)\s*\(/, /\bstruct\s+\w+\s*\{/, /^#define\s+/m],
  cpp: [/^#include\s*<\w+>/m, /\bstd::/, /\bclass\s+\w+(\s*:\s*(public|private)\s+\w+)?\s*\{/, /\btemplate\s*</, /\bnamespace\s+\w+/, /\b(cout|cerr)\b/, /\w+::\w+\s*\(/, /\b(public|private|protected):/],
};

export interface Detection {
  language: string;
  /** Grammar available for this language. */
  grammar: boolean;
  how: 'explicit' | 'filename' | 'content' | 'none';
}

const PROBE = 32 * 1024;

/** Language from explicit name, else file extension, else content signals confirmed by parse errors. */
export function detectLanguage(code: string, language?: string | null, filename?: string | null): Detection {
  if (language && language.trim()) {
    const id = normalizeLanguage(language);
    return { language: id, grammar: id in LANGUAGES, how: 'explicit' };
  }
  if (filename) {
    const id = languageFromFilename(filename);
    // `.h` is C or C++: every C++ signal is a construct C does not have (namespace, class, template,
    // `::`, access labels, `<vector>`-style includes), so one of them makes it C++, and none makes it C.
    // Parsing both ways was slower and misread macro-heavy C headers as C++.
    if (id === 'c' && /\.h$/i.test(filename)) return { language: SIGNALS.cpp!.some((re) => re.test(code)) ? 'cpp' : 'c', grammar: true, how: 'filename' };
    if (id) return { language: id, grammar: id in LANGUAGES, how: 'filename' };
  }
  const sample = code.length > PROBE ? code.slice(0, PROBE) : code;
  // An HTML page or an XML document is markup, not TSX (whose signals it shares): the text engine reads it.
  if (/^\uFEFF?\s*<\?xml\b/.test(sample) || looksLikeHtml(sample)) return { language: 'unknown', grammar: false, how: 'none' };
  const scores: Record<string, number> = {};
  for (const [id, signals] of Object.entries(SIGNALS)) scores[id] = signals.reduce((n, re) => n + (re.test(sample) ? 1 : 0), 0);
  // TS and TSX extend JS; C++ extends C: carry the base score so the superset can win on parse quality.
  scores.typescript! += scores.javascript! > 0 && scores.typescript! > 0 ? scores.javascript! : 0;
  scores.tsx! += scores.tsx! > 0 ? scores.typescript! : 0;
  scores.cpp! += scores.cpp! > 0 ? scores.c! : 0;
  const candidates = Object.entries(scores)
    .filter(([, s]) => s > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([id]) => id);
  if (candidates.length === 0) return { language: 'unknown', grammar: false, how: 'none' };
  return { language: fewestErrors(sample, candidates, scores), grammar: true, how: 'content' };
}

function fewestErrors(code: string, candidates: string[], scores: Record<string, number>): string {
  const sample = code.length > PROBE ? code.slice(0, PROBE) : code;
  let best = candidates[0]!;
  let bestErrors = Infinity;
  for (const [i, id] of candidates.entries()) {
    // A clean parse cannot be beaten except on score: skip the other grammars (parsing C++ as C is slow).
    if (bestErrors === 0 && candidates.slice(i).every((other) => (scores[other] ?? 0) <= (scores[best] ?? 0))) break;
    const errors = countErrors(parse(id, sample));
    if (errors < bestErrors || (errors === bestErrors && (scores[id] ?? 0) > (scores[best] ?? 0))) {
      best = id;
      bestErrors = errors;
    }
  }
  return best;
}
