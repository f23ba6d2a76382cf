// ES2024 string methods, present in Node 20 (V8 11.3) but not in the ES2023 lib this project compiles against.
declare global {
  interface String {
    isWellFormed(): boolean;
    toWellFormed(): string;
  }
}

/** Whether `text` holds something PostgreSQL (text and jsonb) cannot store: U+0000 or an unpaired surrogate. */
export function needsStoring(text: string): boolean {
  return text.includes('\u0000') || !text.isWellFormed();
}

/**
 * Text PostgreSQL can store: U+0000 removed, unpaired surrogates replaced by U+FFFD. Native scans, not a
 * look-around regex: this runs on every request string, large texts included, on the event loop.
 */
export function storableText(text: string): string {
  return (text.includes('\u0000') ? text.replaceAll('\u0000', '') : text).toWellFormed();
}
