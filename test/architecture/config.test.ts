// Configuration is read in one place: src/config.ts turns the environment into Config; everything
// else gets its values from services.config (or from what app.ts builds out of it).
import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_BILLING_PRICING } from '../../src/commerceSettings.js';
import { packageRoot } from '../../src/lib/root.js';

const root = packageRoot();

describe('configuration in one place', () => {
  it('reads process.env nowhere in src/ but src/config.ts', () => {
    const files = execSync("git ls-files --cached --others --exclude-standard 'src/*.ts' 'src/**/*.ts'", { cwd: root, encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((f) => f && f !== 'src/config.ts' && existsSync(resolve(root, f)));
    expect(files.length).toBeGreaterThan(10);
    const offenders = files.filter((f) => /\bprocess\s*\.\s*env\b|\bprocess\s*\[\s*['"]env['"]\s*\]/.test(readFileSync(resolve(root, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('loadConfig reads the commerce, billing, internal-token and public-host variables', () => {
    const empty = loadConfig({});
    expect(empty.internalToken).toBeNull();
    expect(empty.publicHosts).toEqual([]);
    expect(empty.commerce.pricing).toEqual(DEFAULT_BILLING_PRICING);
    expect(empty.commerce).toMatchObject({
      stripeApiBase: null,
      stripePricePro: 'price_local_pro',
      checkoutCancelUrl: 'http://localhost:8080/billing/cancel',
      outboxPollMs: 1000,
      meterSyncMs: 60_000,
      paymentSecrets: { x402: null, stripe_acp: null, skyfire: null },
    });

    const c = loadConfig({
      INTERNAL_TOKEN: 'tok',
      PUBLIC_HOSTS: ' API.example.com , gc.example.com:8443,,',
      PUBLIC_URL: 'https://gc.example.com/',
      STRIPE_SECRET_KEY: 'sk_live_x',
      METER_SYNC_MS: '0',
      PAYMENT_SECRET_X402: 's',
      BILLING_PRO_CAP_CENTS: '20',
      BILLING_TEAM_UNIT_CENTS: 'not-a-number',
    });
    expect(c.internalToken).toBe('tok');
    expect(c.publicHosts).toEqual(['api.example.com', 'gc.example.com:8443']);
    expect(c.commerce).toMatchObject({
      stripeApiBase: 'https://api.stripe.com',
      stripeSecretKey: 'sk_live_x',
      meterSyncMs: 0,
      portalReturnUrl: 'https://gc.example.com/billing',
      paymentSecrets: { x402: 's', stripe_acp: null, skyfire: null },
    });
    expect(c.commerce.pricing.pro).toEqual({ ...DEFAULT_BILLING_PRICING.pro, cap_cents: 20 });
    // Billing amounts stay lenient (an unusable value keeps the default); other integers are strict.
    expect(c.commerce.pricing.team.unit_amount_cents).toBe(DEFAULT_BILLING_PRICING.team.unit_amount_cents);
    expect(() => loadConfig({ OUTBOX_POLL_MS: 'soon' })).toThrow(/OUTBOX_POLL_MS/);
  });
});
