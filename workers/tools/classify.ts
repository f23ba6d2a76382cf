// What kind of content a text is, so recommend_compression can name the tool that fits it: code (with
// its language), a runner's or compiler's output, JSON (and whether it is a uniform array, which TOON
// turns into a table), an HTML page, XML, YAML, or prose. The markup and structured kinds are told
// apart by the text engine's own detectors, so the advice matches what optimize_for_model will do.
import { detectLanguage } from '../code/detect.js';
import { looksLikeHtml } from '../text/html.js';
import { xmlUnits } from '../text/xml.js';
import { yamlUnits } from '../text/yaml.js';
import { countTokens } from '../shared/tokens.js';
import { detectCliTool, filterCliOutput } from './cliOutput.js';

export type ContentKind = 'code' | 'cli_output' | 'json' | 'html' | 'xml' | 'yaml' | 'prose';

export interface Classification {
  kind: ContentKind;
  tokens: number;
  language: string | null;
  cli_tool: string | null;
  /** JSON only: an array of objects sharing their keys (TOON's table form). */
  uniform_array: boolean;
}

function jsonShape(text: string): { json: boolean; uniform: boolean } {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return { json: false, uniform: false };
  try {
    const v = JSON.parse(t) as unknown;
    const rows = Array.isArray(v) ? v : v && typeof v === 'object' ? Object.values(v).find(Array.isArray) : undefined;
    const uniform =
      Array.isArray(rows) && rows.length >= 2 && rows.every((r) => r && typeof r === 'object' && !Array.isArray(r)) && (() => {
        const keys = Object.keys(rows[0] as object).sort().join(',');
        return rows.every((r) => Object.keys(r as object).sort().join(',') === keys);
      })();
    return { json: true, uniform };
  } catch {
    return { json: false, uniform: false };
  }
}

/** Most lines outside fenced code read as sentences (Markdown with code samples is still prose). */
function looksLikeProse(text: string): boolean {
  const lines = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').split('\n').map((l) => l.trim()).filter(Boolean);
  if (lines.length === 0) return false;
  const sentence = (l: string) => l.split(/\s+/).length >= 5 && /[a-z]{3,}/.test(l) && !/[{};]\s*$|^(def|class|function|import|from|return|if|for|while|const|let|var|public|private|fn|func|#include)\b/.test(l);
  const prose = lines.filter((l) => sentence(l) || /^#{1,6}\s|^[-*+]\s+\w/.test(l)).length;
  return prose / lines.length >= 0.6;
}

export function classifyContent(text: string, hints: { filename?: string | null; command?: string | null } = {}): Classification {
  const tokens = countTokens(text);
  const base = { tokens, language: null, cli_tool: null, uniform_array: false };
  const shape = jsonShape(text);
  if (shape.json) return { ...base, kind: 'json', uniform_array: shape.uniform };
  // Before code detection: a page or an XML document parses as TSX.
  if (looksLikeHtml(text)) return { ...base, kind: 'html' };
  if (xmlUnits(text)) return { ...base, kind: 'xml' };
  const lines = text.split('\n');
  const cli = detectCliTool(lines, hints.command ?? '');
  if (cli !== 'generic' || hints.command) {
    const f = filterCliOutput(text, { command: hints.command ?? undefined });
    if (cli !== 'generic' || f.failure_lines + f.error_lines + f.summary.length > 0) return { ...base, kind: 'cli_output', cli_tool: cli };
  }
  if (yamlUnits(text)) return { ...base, kind: 'yaml' };
  if (!hints.filename && looksLikeProse(text)) return { ...base, kind: 'prose' };
  const d = detectLanguage(text, null, hints.filename ?? null);
  if (d.how !== 'none' && d.grammar) return { ...base, kind: 'code', language: d.language };
  return { ...base, kind: 'prose' };
}
