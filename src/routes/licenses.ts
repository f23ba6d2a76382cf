import { z } from 'zod';
import { audit } from '../domain/audit/audit.js';
import { checkLicense, generateLicense } from '../domain/commerce/licenses.js';
import { recordMeteringReport } from '../domain/commerce/metering.js';
import { HttpError } from '../http/errors.js';
import { defineRoute } from '../http/route.js';
import { int, isoTime } from './schemas.js';

const GenerateLicenseBody = z
  .object({
    customer_email: z.string().email().max(320),
    customer_name: z.string().min(1).max(200).nullish(),
    seats: z.number().int().min(1).max(100_000).default(1),
    expires_in_days: z.number().int().min(1).max(1095).default(365),
  })
  .strict();

const ValidateLicenseBody = z.object({ license_key: z.string().min(1).max(8192) }).strict();

const MeteringBody = z
  .object({
    period: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'period must be YYYY-MM'),
    compressions: z.number().int().min(0).max(1_000_000_000),
    tokens_saved: z.number().int().min(0).default(0),
    instance_id: z.string().min(1).max(100).default('default'),
  })
  .strict();

const REASONS = ['malformed', 'unknown_signing_key', 'bad_signature', 'wrong_issuer_or_audience', 'expired', 'not_yet_valid', 'unknown_license', 'revoked'] as const;
const License = z.object({
  license_id: z.string(),
  license_key: z.string(),
  plan: z.literal('enterprise'),
  seats: int,
  customer_email: z.string(),
  issued_at: isoTime,
  expires_at: isoTime,
  kid: z.string(),
  emailed: z.boolean(),
});
/** LicenseValidationResponse: valid with its terms, or the reason it is not. */
const Validation = z.union([
  z.object({ valid: z.literal(true), reason: z.null(), license_id: z.string(), plan: z.string(), seats: int, expires_at: isoTime }),
  z.object({ valid: z.literal(false), reason: z.enum(REASONS), license_id: z.string().nullable(), expires_at: isoTime.nullable() }),
]);
const MeteringAccepted = z.object({
  accepted: z.literal(true),
  report_id: z.string(),
  license_id: z.string(),
  period: z.string(),
  instance_id: z.string(),
  compressions: int,
  duplicate: z.boolean(),
  received_at: isoTime,
});

/** The license key from Authorization: "Bearer <key>", "License <key>" or the bare key. */
function licenseFromHeader(value: string | undefined): string | null {
  if (!value) return null;
  const m = /^(?:bearer|license)\s+(\S+)$/i.exec(value.trim());
  return m ? m[1]! : /^\S+$/.test(value.trim()) ? value.trim() : null;
}

export const licenseRoutes = [
  // GenerateLicenseRequest -> GenerateLicenseResponse (201). Enterprise plan only (docs/commerce.md).
  defineRoute({
    method: 'POST',
    path: '/v1/licenses/generate',
    auth: 'key',
    plan: 'enterprise',
    body: GenerateLicenseBody,
    response: License,
    doc: { status: 201 },
    async handler({ services, principal, body, requestId }) {
      const commerce = services.commerce;
      const license = await generateLicense(services.db, principal.userId, body);
      void commerce.outbox.drainOnce().catch(() => 0);
      await audit(services, principal, 'license.generate', { type: 'license', id: license.license_id }, 'success', {
        requestId,
        detail: { seats: license.seats, expires_at: license.expires_at, kid: license.kid },
      });
      const { outbox_id: _outbox, ...reply } = license;
      return { status: 201, body: reply };
    },
  }),
  // ValidateLicenseRequest -> LicenseValidationResponse (200, public): valid, or the reason it is not.
  defineRoute({
    method: 'POST',
    path: '/v1/licenses/validate',
    auth: 'public',
    body: ValidateLicenseBody,
    response: Validation,
    async handler({ services, body }) {
      const check = await checkLicense(services.db, body.license_key);
      if (!check.valid) {
        return { body: { valid: false, reason: check.reason, license_id: check.licenseId, expires_at: check.expiresAt?.toISOString() ?? null } };
      }
      return {
        body: { valid: true, reason: null, license_id: check.licenseId, plan: check.plan, seats: check.seats, expires_at: check.expiresAt.toISOString() },
      };
    },
  }),
  // MeteringReportRequest -> MeteringAcceptedResponse (202); Authorization carries the license key.
  defineRoute({
    method: 'POST',
    path: '/v1/metering',
    auth: 'public',
    body: MeteringBody,
    response: MeteringAccepted,
    doc: { status: 202 },
    async handler({ services, headers, body, requestId }) {
      const token = licenseFromHeader(headers.authorization);
      if (!token) throw new HttpError(401, 'License key required in the Authorization header', { 'www-authenticate': 'License' });
      const check = await checkLicense(services.db, token);
      if (!check.valid) throw new HttpError(401, `Invalid license: ${check.reason}`, { 'www-authenticate': 'License' });
      const result = await recordMeteringReport(services.db, check.licenseId, check.userId, body);
      await audit(services, null, 'metering.report', { type: 'license', id: check.licenseId }, 'success', {
        ownerId: check.userId,
        requestId,
        detail: { period: body.period, instance_id: body.instance_id, compressions: result.compressions, duplicate: result.duplicate },
      });
      return {
        status: 202,
        body: {
          accepted: true,
          report_id: result.report_id,
          license_id: check.licenseId,
          period: body.period,
          instance_id: body.instance_id,
          compressions: result.compressions,
          duplicate: result.duplicate,
          received_at: result.received_at,
        },
      };
    },
  }),
];
