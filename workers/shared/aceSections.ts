// Which playbook section a free-text insight belongs to (the host's curator and the candidate extractor share it).

/** The section a free-text insight most likely belongs to. */
export function sectionFor(text: string): string {
  const t = text.toLowerCase();
  if (/\b(avoid|don'?t|do not|never|pitfall|mistake|wrong|fail(?:s|ed|ure)?|error|bug|harmful|instead of)\b/.test(t)) return 'pitfalls';
  if (/\b(api|endpoint|tool|function|method|library|sdk|cli|command)\b/.test(t)) return 'tools/apis';
  return 'strategies';
}
