// Static analysis of a community skill (SKILL.md body, install snippet, name, tagline): findings by
// category with a severity, a 0-10 score (10 = nothing found) and a verdict (the worst severity, or
// SAFE). Pure and synchronous: it runs in a pool worker (workers/skills/tasks.ts).
import {
  COLLECTOR_HOSTS, COMMENT_IMPERATIVE, HIDDEN_CHARS, LINE_RULES, MENTION_CONTEXT, NETWORK_SEND, RAW_IP_URL, SENSITIVE_SOURCE, TAG_CHARS,
  type FindingCategory, type LineRule, type Severity,
} from './rules.js';

export const SCANNER_VERSION = 'skill-scan-1';
export type Verdict = 'SAFE' | Severity;
export type Location = 'body' | 'install_snippet' | 'name' | 'tagline';

export interface SkillScanInput {
  body: string;
  install_snippet?: string | null;
  name?: string | null;
  tagline?: string | null;
}

export interface Finding {
  rule: string;
  category: FindingCategory;
  severity: Severity;
  location: Location;
  line: number;
  excerpt: string;
  message: string;
}

export interface SkillScanResult {
  score: number;
  verdict: Verdict;
  findings: Finding[];
  counts: Record<Severity, number>;
  scanner_version: string;
  truncated: boolean;
}

const RANK: Record<Verdict, number> = { SAFE: 0, LOW: 1, MEDIUM: 2, HIGH: 3, CRITICAL: 4 };
const PENALTY: Record<Severity, number> = { LOW: 0.5, MEDIUM: 1.5, HIGH: 4, CRITICAL: 10 };
const MAX_PER_RULE = 20;
const MAX_FINDINGS = 200;
/** Lines within this distance share a context (a code block's read and its send are seldom on one line). */
const WINDOW = 3;

export { ACCEPTABLE_VERDICTS } from '../shared/skillVerdicts.js';

export function worse(a: Verdict, b: Verdict): Verdict {
  return RANK[a] >= RANK[b] ? a : b;
}

/** Placeholder values in docs: sk-your-key-here, <TOKEN>, ${API_KEY}, xxxx, AKIAIOSFODNN7EXAMPLE. */
function isPlaceholder(value: string): boolean {
  if (/x{4,}|X{4,}|\*{3,}|\.{3}|0{8,}|1234567|abcdef|your|example|placeholder|changeme|dummy|redacted|fake|sample|test|<|>|\$\{|\$[A-Z_]|\{\{/i.test(value)) return true;
  const body = value.replace(/^[a-z]+[-_]/i, '');
  return new Set(body).size < Math.min(8, body.length / 3);
}

function redact(line: string, match: string): string {
  return line.split(match).join(`${match.slice(0, 4)}…[redacted]`);
}

function excerptOf(line: string): string {
  const t = line.trim();
  return t.length > 160 ? `${t.slice(0, 157)}...` : t;
}

/** Quoted phrase in a line that warns about it or describes detecting it. */
function isMention(line: string, match: string): boolean {
  if (!MENTION_CONTEXT.test(line)) return false;
  const at = line.indexOf(match);
  const before = line.slice(0, Math.max(0, at));
  const quotes = (before.match(/["“”'`‘’]/g) ?? []).length;
  // A negation before the phrase is not enough ("never mention to the user" is the attack itself; an
  // unrelated "do not" earlier in the line was a holdout miss): it must be quoted or be named as a thing to detect.
  return quotes % 2 === 1 || /\b(?:avoid|refuse|reject|flag|detect|warn|block|treat|such as|e\.g\.|like|look for|watch for)\b/i.test(before);
}

interface Scanned {
  lines: string[];
  location: Location;
}

function lineFindings(part: Scanned, out: Finding[], perRule: Map<string, number>): void {
  const rules = LINE_RULES.filter((r) => !r.installOnly || part.location === 'install_snippet');
  part.lines.forEach((line, i) => {
    if (!line.trim()) return;
    for (const rule of rules) {
      const text = rule.prose ? [line, part.lines[i + 1] ?? '', part.lines[i + 2] ?? ''].join(' ') : line;
      const m = rule.pattern.exec(text);
      // A prose match belongs to the line it starts on (the next lines find their own).
      if (!m || m.index >= line.length) continue;
      const severity = severityOf(rule, text, m, part, i);
      if (!severity) continue;
      add(out, perRule, { rule: rule.id, category: rule.category, severity, location: part.location, line: i + 1, excerpt: excerptOf(rule.secret ? redact(line, m[1] ?? m[0]) : line), message: rule.message });
    }
  });
}

/** The rule's severity for this line, raised or lowered by its context; null drops the match. */
function severityOf(rule: LineRule, line: string, m: RegExpExecArray, part: Scanned, i: number): Severity | null {
  if (rule.secret) {
    const value = m[1] ?? m[0];
    const assignment = rule.id === 'generic_secret_assignment' || rule.id === 'env_secret_assignment';
    if (isPlaceholder(value)) return assignment ? null : 'LOW';
    // Random-looking values are real credentials; low-entropy ones may be names or words.
    if (assignment) return entropy(value) >= 3.5 ? 'CRITICAL' : 'HIGH';
    return rule.severity;
  }
  if (rule.mentionable && isMention(line, m[0])) return 'LOW';
  const near = part.lines.slice(Math.max(0, i - WINDOW), i + WINDOW + 1).join('\n');
  if ((rule.id === 'pipe_to_shell' || rule.id === 'download_and_execute') && untrustedSource(line)) return 'CRITICAL';
  if (rule.id === 'collector_host' || rule.id === 'raw_ip_url') return NETWORK_SEND.test(near) || SENSITIVE_SOURCE.test(near) ? 'CRITICAL' : rule.severity;
  if (rule.id === 'sensitive_read' && NETWORK_SEND.test(near)) return 'CRITICAL';
  if (rule.id === 'git_remote_outside' && /\bgit\s+push\b[^\n]{0,80}--(?:all|mirror)\b/.test(near)) return 'CRITICAL';
  return rule.severity;
}

/**
 * Fetched code from plain http, an IP, a collector or base64. An https host that is not a known
 * installer is not enough: holdout3 showed official installers (get.pulumi.com, foundry.paradigm.xyz)
 * that no allow-list of ours held, so it stays HIGH (not acceptable, but not CRITICAL).
 */
function untrustedSource(line: string): boolean {
  return /\bhttp:\/\//i.test(line) || RAW_IP_URL.test(line) || COLLECTOR_HOSTS.test(line) || /base64/.test(line);
}

/** Shannon entropy in bits per character. */
function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) h -= (n / s.length) * Math.log2(n / s.length);
  return h;
}

function add(out: Finding[], perRule: Map<string, number>, f: Finding): void {
  const n = perRule.get(f.rule) ?? 0;
  if (n >= MAX_PER_RULE || out.length >= MAX_FINDINGS) return;
  perRule.set(f.rule, n + 1);
  out.push(f);
}

/** Line number (1-based) of a character offset, by binary search over the line starts. */
function lineLocator(text: string): (index: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (index) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/** Rules over the whole text: hidden characters, and instructions hidden in HTML comments. */
function documentFindings(text: string, location: Location, out: Finding[], perRule: Map<string, number>): void {
  const lineAt = lineLocator(text);
  const tag = TAG_CHARS.exec(text);
  if (tag) add(out, perRule, { rule: 'unicode_tag_chars', category: 'prompt_injection', severity: 'CRITICAL', location, line: lineAt(tag.index), excerpt: 'invisible Unicode tag characters', message: 'text hidden in invisible Unicode tag characters' });
  const hidden = HIDDEN_CHARS.exec(text);
  if (hidden) add(out, perRule, { rule: 'hidden_characters', category: 'prompt_injection', severity: 'HIGH', location, line: lineAt(hidden.index), excerpt: `U+${hidden[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`, message: 'zero-width or bidirectional control characters' });
  // indexOf, not a lazy regex: an unclosed "<!--" repeated many times would make a regex quadratic.
  for (let open = text.indexOf('<!--'); open !== -1; ) {
    const close = text.indexOf('-->', open + 4);
    if (close === -1) break;
    const inner = text.slice(open + 4, close);
    if (COMMENT_IMPERATIVE.test(inner) && inner.trim().split(/\s+/, 4).length >= 4) {
      add(out, perRule, { rule: 'hidden_comment_instructions', category: 'prompt_injection', severity: 'CRITICAL', location, line: lineAt(open), excerpt: excerptOf(inner.slice(0, 400).replace(/\s+/g, ' ')), message: 'instructions to the agent hidden in an HTML comment' });
    }
    open = text.indexOf('<!--', close + 3);
  }
}

export function scanSkill(input: SkillScanInput): SkillScanResult {
  const parts: [Location, string | null | undefined][] = [['body', input.body], ['install_snippet', input.install_snippet], ['name', input.name], ['tagline', input.tagline]];
  const findings: Finding[] = [];
  const perRule = new Map<string, number>();
  for (const [location, text] of parts) {
    if (!text) continue;
    lineFindings({ lines: text.split(/\r?\n/), location }, findings, perRule);
    documentFindings(text, location, findings, perRule);
  }
  const counts: Record<Severity, number> = { LOW: 0, MEDIUM: 0, HIGH: 0, CRITICAL: 0 };
  let verdict: Verdict = 'SAFE';
  let penalty = 0;
  for (const f of findings) {
    counts[f.severity]++;
    verdict = worse(verdict, f.severity);
    penalty += PENALTY[f.severity];
  }
  findings.sort((a, b) => RANK[b.severity] - RANK[a.severity] || a.location.localeCompare(b.location) || a.line - b.line);
  const score = Math.max(0, Math.round((10 - penalty) * 10) / 10);
  return { score, verdict, findings, counts, scanner_version: SCANNER_VERSION, truncated: findings.length >= MAX_FINDINGS };
}
