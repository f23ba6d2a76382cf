// The credential shapes usage previews redact (src/lib/redactSecrets.ts; the list is in
// docs/reliability.md "Secrets at rest"). Samples are made at run time in each shape's real format,
// so no credential-looking literal sits in the repository, and each is planted inside prose.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inputPreview } from '../../src/domain/metering/usage.js';
import { redactSecrets, SECRET_SHAPES } from '../../src/lib/redactSecrets.js';

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const pick = (alphabet: string, n: number) => Array.from(randomBytes(n), (b) => alphabet[b % alphabet.length]).join('');
const b64url = (n: number) => randomBytes(n).toString('base64url');
const jwtPart = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** One real-looking sample per shape: [shape kind, the text as sent, the secret part that must go]. */
function samples(): [string, string, string][] {
  const gc = `gc_${randomBytes(16).toString('hex')}`;
  const akia = `AKIA${pick(UPPER, 16)}`;
  const asia = `ASIA${pick(UPPER, 16)}`;
  const awsSecret = randomBytes(30).toString('base64');
  const ghp = `ghp_${pick(ALNUM, 36)}`;
  const pat = `github_pat_${pick(ALNUM, 22)}_${pick(ALNUM, 59)}`;
  const slack = `xoxb-${pick('0123456789', 12)}-${pick('0123456789', 13)}-${pick(ALNUM, 24)}`;
  const stripe = `sk_live_${pick(ALNUM, 24)}`;
  const restricted = `rk_live_${pick(ALNUM, 24)}`;
  const whsec = `whsec_${randomBytes(24).toString('base64')}`;
  const openai = `sk-proj-${b64url(36)}`;
  const openaiOld = `sk-${pick(ALNUM, 48)}`;
  const anthropic = `sk-ant-api03-${b64url(70)}`;
  const google = `AIza${b64url(26).slice(0, 35)}`;
  const jwt = `${jwtPart({ alg: 'HS256', typ: 'JWT' })}.${jwtPart({ sub: '1234567890', name: 'Jo', iat: 1516239022 })}.${b64url(32)}`;
  const pemBody = randomBytes(90).toString('base64');
  const pgPass = pick(ALNUM, 14);
  const bearer = b64url(30);
  const password = `Tr0ub4dor&${pick(ALNUM, 6)}`;
  const apiKey = pick(ALNUM, 32);
  return [
    ['gc_key', `Please debug: curl -H "x-key: ${gc}" went 401`, gc],
    ['aws_access_key_id', `my key id is ${akia} in us-east-1`, akia],
    ['aws_access_key_id', `session creds ${asia} expire soon`, asia],
    ['aws_secret_access_key', `[default]\naws_secret_access_key = ${awsSecret}`, awsSecret],
    ['aws_secret_access_key', `export AWS_SECRET_ACCESS_KEY="${awsSecret}"`, awsSecret],
    ['github_token', `git clone https://x:${ghp}@github.com/acme/app`, ghp],
    ['github_token', `GH token ${pat} for CI`, pat],
    ['slack_token', `bot uses ${slack} to post`, slack],
    ['stripe_key', `STRIPE=${stripe} in prod`, stripe],
    ['stripe_key', `restricted ${restricted}`, restricted],
    ['webhook_secret', `verify with ${whsec} please`, whsec],
    ['llm_api_key', `OPENAI key ${openai} stopped working`, openai],
    ['llm_api_key', `old style ${openaiOld}`, openaiOld],
    ['llm_api_key', `claude via ${anthropic}`, anthropic],
    ['google_api_key', `maps?key=${google}&q=x`, google],
    ['jwt', `session cookie ${jwt} expired`, jwt],
    ['private_key', `-----BEGIN RSA PRIVATE KEY-----\n${pemBody}\n-----END RSA PRIVATE KEY-----\nthanks`, pemBody],
    ['private_key', `key: -----BEGIN OPENSSH PRIVATE KEY-----\\n${pemBody}\\n-----END OPENSSH PRIVATE KEY-----`, pemBody],
    ['url_password', `DATABASE_URL=postgres://app:${pgPass}@db.internal:5432/prod`, pgPass],
    ['url_password', `redis://default:${pgPass}@cache:6379`, pgPass],
    ['authorization', `Authorization: Bearer ${bearer}`, bearer],
    ['authorization', `"authorization": "Basic ${bearer}"`, bearer],
    ['bearer_token', `send it with Bearer ${bearer} header`, bearer],
    ['assigned_secret', `login with user=admin password=${password} ok?`, password],
    ['assigned_secret', `{"api_key": "${apiKey}", "region": "eu"}`, apiKey],
    ['assigned_secret', `client_secret: ${apiKey}`, apiKey],
  ];
}

describe('credential shapes in customer text', () => {
  it('every documented shape has a real-looking sample, and each is redacted whole with its kind named', () => {
    const all = samples();
    expect(new Set(all.map(([kind]) => kind))).toEqual(new Set(SECRET_SHAPES.map((s) => s.kind)));
    for (const [kind, text, secret] of all) {
      const out = redactSecrets(text);
      expect(out, `${kind}: ${text}`).not.toContain(secret);
      // No recognisable piece of it either (its first and last 8 characters).
      expect(out, kind).not.toContain(secret.slice(0, 8));
      expect(out, kind).not.toContain(secret.slice(-6));
      expect(out, kind).toMatch(/\[redacted:[a-z_]+\]/);
    }
  });

  it('keeps the name an assignment gave its value, and the prose around a secret', () => {
    const [, text] = samples().find(([k]) => k === 'assigned_secret')!;
    expect(redactSecrets(text)).toBe('login with user=admin password=[redacted:assigned_secret] ok?');
    expect(redactSecrets(`postgres://app:hunter2hunter2@db:5432/x`)).toBe('postgres://app:[redacted:url_password]@db:5432/x');
    expect(redactSecrets(`Authorization: Bearer abcdefghijklmnopqrstuvwxyz`)).toBe('Authorization: Bearer [redacted:authorization]');
  });

  it('leaves ordinary prose and code alone', () => {
    const prose = [
      'The quarterly report shows input_tokens: 5120 and max_tokens=256 for the summariser.',
      'Our secretary will reset your password tomorrow; the token budget is fine.',
      'See https://example.com/docs?page=2 and postgres://localhost/db for the setup.',
      'const task = "sk-learn pipeline"; the bearer of bad news; AKIA is a prefix.',
      'function compress(text) { return text.split("\\n").map((l) => l.trim()); }',
      'gc_ keys start with gc_ and are 35 characters long; whsec_ is a prefix too.',
    ];
    for (const p of prose) expect(redactSecrets(p)).toBe(p);
  });

  it('usage previews redact before the cut to 100 characters: a key across the 100th character leaves no prefix', () => {
    const gc = `gc_${randomBytes(16).toString('hex')}`;
    for (let at = 80; at <= 100; at += 4) {
      const text = `${'a'.repeat(at)}${gc} and more text after it\nsecond line`;
      const preview = inputPreview(text)!;
      expect(Array.from(preview).length).toBeLessThanOrEqual(100);
      expect(preview).not.toContain(gc.slice(0, 6));
      expect(preview.startsWith('a'.repeat(at))).toBe(true);
    }
    const akia = `AKIA${pick(UPPER, 16)}`;
    expect(inputPreview(`${'word '.repeat(19)}${akia}`)).toBe(`${'word '.repeat(19)}[redacted:aws_access_key_id]`.slice(0, 100));
    // A quoted value longer than the part of the line searched still goes from its first character.
    expect(inputPreview(`${'x'.repeat(80)} password="${'p4ss'.repeat(600)}"`)).toBe(`${'x'.repeat(80)} password=[redacted:assigned_secret]`.slice(0, 100));
    expect(inputPreview(`SECRET_KEY=${'k'.repeat(50)} rest`)).toBe('SECRET_KEY=[redacted:assigned_secret] rest');
    // A secret on a later line never reaches the preview (only the first line is kept).
    expect(inputPreview(`hello\n${gc}`)).toBe('hello');
  });
});
