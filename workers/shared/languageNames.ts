// Language names a request may give, without the grammar tables (workers/code/languages.ts, whose
// LANGUAGES must have exactly these keys: checked by its type).

/** Languages with a grammar, in the order they are listed. */
const LANGUAGE_IDS = ['python', 'javascript', 'typescript', 'tsx', 'java', 'go', 'rust', 'c', 'cpp'] as const;
export type LanguageId = (typeof LANGUAGE_IDS)[number];
export const SUPPORTED_LANGUAGES: readonly string[] = LANGUAGE_IDS;

/** Request-level aliases accepted for `language`. */
const ALIASES: Record<string, string> = {
  py: 'python', python3: 'python', js: 'javascript', jsx: 'javascript', node: 'javascript', ecmascript: 'javascript',
  ts: 'typescript', golang: 'go', rs: 'rust', 'c++': 'cpp', cxx: 'cpp', cc: 'cpp', hpp: 'cpp', h: 'c',
};

export function normalizeLanguage(name: string): string {
  const lower = name.trim().toLowerCase();
  return ALIASES[lower] ?? lower;
}
