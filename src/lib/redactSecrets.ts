// Credentials inside customer text, replaced before the text is kept anywhere it was not sent to be
// kept (usage previews; docs/reliability.md "Secrets at rest" lists the shapes). Each shape is
// matched by its own prefix or by the name it is assigned to, so prose is left alone; a match is
// replaced whole by `[redacted:<kind>]`, or, for an assignment, its value only (the name stays, so a
// preview still says what was there). The patterns never cross a line break except a PEM block, so
// redacting one line gives what redacting the whole text and cutting that line out would.

export interface SecretShape {
  kind: string;
  /** What it catches, for docs and test names. */
  label: string;
  pattern: RegExp;
  /** The capture group that is the secret (an assignment's value), right after group 1; none = the whole match. */
  group?: 2;
}

// A value after `=` or `:`: quoted, or a run up to whitespace or a quote (passwords hold & , ; too:
// a query string's next parameter going with it is the price of not leaving a password's tail).
// A quoted value cut before its closing quote (the end of what is searched) still goes.
const VALUE = String.raw`("[^"\r\n]*(?:"|$)|'[^'\r\n]*(?:'|$)|[^\s"'<>]+)`;
const ASSIGN = String.raw`["']?[ \t]*[:=][ \t]*`;

export const SECRET_SHAPES: readonly SecretShape[] = [
  // PEM first: its body holds base64 that other shapes would only partly match. No END marker (a cut
  // text, a first line holding escaped "\n"s) redacts to the end of the text.
  { kind: 'private_key', label: 'PEM private key block', pattern: /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|$)/g },
  { kind: 'gc_key', label: "this service's API keys (gc_ + 32 hex)", pattern: /gc_[0-9a-fA-F]{32}(?![0-9a-zA-Z])/g },
  { kind: 'aws_access_key_id', label: 'AWS access key ids (AKIA…, ASIA…)', pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![A-Za-z0-9])/g },
  { kind: 'aws_secret_access_key', label: 'AWS secret access keys (the value of aws_secret_access_key)', pattern: new RegExp(String.raw`(aws_?secret_?access_?key${ASSIGN})${VALUE}`, 'gi'), group: 2 },
  { kind: 'github_token', label: 'GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)', pattern: /(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g },
  { kind: 'slack_token', label: 'Slack tokens (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-) and webhook URLs', pattern: /(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}|https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g },
  { kind: 'stripe_key', label: 'Stripe secret and restricted keys (sk_live_, sk_test_, rk_live_, rk_test_)', pattern: /(?<![A-Za-z0-9])[rs]k_(?:live|test)_[A-Za-z0-9_]{10,}/g },
  { kind: 'webhook_secret', label: 'webhook signing secrets (whsec_)', pattern: /(?<![A-Za-z0-9])whsec_[A-Za-z0-9+/=_-]{10,}/g },
  // sk-ant- and sk-proj- are sk- keys: one pattern, before the generic assignment below.
  { kind: 'llm_api_key', label: 'OpenAI and Anthropic keys (sk-…, sk-proj-…, sk-ant-…)', pattern: /(?<![A-Za-z0-9])sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { kind: 'google_api_key', label: 'Google API keys (AIza…)', pattern: /(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}/g },
  // Two dot-separated base64url JSON objects are enough: a token cut after its payload still goes.
  { kind: 'jwt', label: 'JSON Web Tokens (eyJ….eyJ….…)', pattern: /(?<![A-Za-z0-9])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*)?/g },
  { kind: 'url_password', label: 'passwords in URLs and connection strings (scheme://user:password@host)', pattern: /\b([a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@]{1,128}:)([^\s@/]{1,256})@/gi, group: 2 },
  { kind: 'authorization', label: 'Authorization header values (Bearer, Basic, Token)', pattern: /\b((?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:Bearer|Basic|Token|Bot)?[ \t]*)([^\s"'<>]+)/gi, group: 2 },
  { kind: 'bearer_token', label: 'bearer tokens (Bearer <16+ token characters>)', pattern: /\b(Bearer[ \t]+)([A-Za-z0-9._~+/=-]{16,})/g, group: 2 },
  {
    kind: 'assigned_secret',
    label: 'values assigned (= or :) to a name ending in password, passwd, pwd, secret, secret_key, token, api_key, apikey, access_key, private_key',
    // The name's end is enough (db_password=, client_secret:, GITHUB_TOKEN=); a name running on past
    // the word (secretary:) is not a secret's.
    pattern: new RegExp(String.raw`((?:password|passwd|pwd|secret|secret[_-]?key|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key)${ASSIGN})${VALUE}`, 'gi'),
    group: 2,
  },
];

const marker = (kind: string) => `[redacted:${kind}]`;
const ALREADY = /^["']?\[redacted:/;

/** `text` with every credential shape replaced; text without one comes back as the same string. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const shape of SECRET_SHAPES) {
    shape.pattern.lastIndex = 0;
    out = out.replace(shape.pattern, (...m: unknown[]) => {
      const whole = m[0] as string;
      if (!shape.group) return marker(shape.kind);
      // Grouped shapes are (name or scheme)(value)[rest]: the value starts where the first group ends.
      const start = (m[1] as string).length;
      const value = m[shape.group] as string | undefined;
      if (!value || ALREADY.test(value)) return whole;
      return whole.slice(0, start) + marker(shape.kind) + whole.slice(start + value.length);
    });
  }
  return out;
}
