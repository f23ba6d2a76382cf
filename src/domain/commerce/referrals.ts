import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../store/db.js';

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'; // no 0/O, 1/I

function newCode(): string {
  const bytes = randomBytes(8);
  return 'GC-' + Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join('');
}

export const REFERRAL_CODE = /^GC-[A-Z2-9]{8}$/;

/** The caller's one stable code: created on the first call, the same on every later call. */
export async function referralCode(db: Queryable, userId: string): Promise<{ code: string; created_at: Date; created: boolean }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const inserted = await db.query<{ code: string; created_at: Date }>(
      `insert into referral_codes (user_id, code) values ($1, $2) on conflict do nothing returning code, created_at`,
      [userId, newCode()],
    );
    if (inserted[0]) return { ...inserted[0], created: true };
    const [existing] = await db.query<{ code: string; created_at: Date }>('select code, created_at from referral_codes where user_id = $1', [userId]);
    if (existing) return { ...existing, created: false };
    // The conflict was on the code (another user holds it): try a new one.
  }
  throw new Error('could not allocate a referral code');
}

export async function existingCode(db: Queryable, userId: string): Promise<string | null> {
  const [row] = await db.query<{ code: string }>('select code from referral_codes where user_id = $1', [userId]);
  return row?.code ?? null;
}

export type ClaimOutcome =
  | { kind: 'claimed'; referral: { id: string; code: string; referrer_id: string; created_at: Date } }
  | { kind: 'unknown-code' }
  | { kind: 'self-referral' }
  | { kind: 'already-claimed'; code: string };

/** The referred user claims a code: no self-referral, at most one claim per referred user. */
export async function claimReferral(db: Queryable, referredId: string, rawCode: string, source: 'manual' | 'webhook'): Promise<ClaimOutcome> {
  const code = rawCode.trim().toUpperCase();
  const [owner] = await db.query<{ user_id: string }>('select user_id from referral_codes where code = $1', [code]);
  if (!owner) return { kind: 'unknown-code' };
  if (owner.user_id === referredId) return { kind: 'self-referral' };
  const [row] = await db.query<{ id: string; code: string; referrer_id: string; created_at: Date }>(
    `insert into referrals (referrer_id, referred_id, code, source) values ($1, $2, $3, $4)
     on conflict (referred_id) do nothing returning id, code, referrer_id, created_at`,
    [owner.user_id, referredId, code, source],
  );
  if (!row) {
    const [prior] = await db.query<{ code: string }>('select code from referrals where referred_id = $1', [referredId]);
    return { kind: 'already-claimed', code: prior?.code ?? code };
  }
  return { kind: 'claimed', referral: row };
}

export interface ReferralListRow {
  id: string;
  referred_user_id: string;
  referred_plan: string;
  source: string;
  created_at: Date;
}

export async function listReferrals(db: Queryable, referrerId: string): Promise<ReferralListRow[]> {
  return db.query<ReferralListRow>(
    `select r.id, r.referred_id as referred_user_id, u.plan as referred_plan, r.source, r.created_at
       from referrals r join users u on u.id = r.referred_id
      where r.referrer_id = $1 order by r.created_at desc, r.id desc limit 500`,
    [referrerId],
  );
}

export async function referralStats(db: Queryable, referrerId: string) {
  const [row] = await db.query<{ total: number; converted: number; via_webhook: number; last: Date | null }>(
    `select count(*)::int as total,
            count(*) filter (where u.plan <> 'free')::int as converted,
            count(*) filter (where r.source = 'webhook')::int as via_webhook,
            max(r.created_at) as last
       from referrals r join users u on u.id = r.referred_id where r.referrer_id = $1`,
    [referrerId],
  );
  return row!;
}
