const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text PostgreSQL (text and jsonb) can store: U+0000 removed, unpaired surrogates replaced by U+FFFD. */
export function storableText(text: string): string {
  return text.replace(/\u0000/g, '').replace(LONE_SURROGATE, '\ufffd');
}
