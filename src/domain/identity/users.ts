import type { Plan } from '../../auth/plans.js';
import type { Queryable } from '../../store/db.js';

export interface User {
  id: string;
  email: string | null;
  name: string | null;
  plan: Plan;
  is_admin: boolean;
  /** The identity provider's `sub`; null for users created with an API key only. */
  external_id?: string | null;
  billing_customer_id?: string | null;
  /** Usage events keep a redacted input preview (the account's privacy setting). */
  store_input_previews: boolean;
  created_at: Date;
}

export async function createUser(db: Queryable, input: { email?: string | null; name?: string | null; plan: Plan; isAdmin?: boolean }): Promise<User> {
  const [user] = await db.query<User>(
    `insert into users (email, name, plan, is_admin) values ($1, $2, $3, $4) returning *`,
    [input.email ?? null, input.name ?? null, input.plan, input.isAdmin ?? false],
  );
  return user!;
}

export async function countUsers(db: Queryable): Promise<number> {
  const [row] = await db.query<{ n: number }>('select count(*)::int as n from users');
  return row!.n;
}

export async function getUser(db: Queryable, id: string): Promise<User | null> {
  const [user] = await db.query<User>('select * from users where id = $1', [id]);
  return user ?? null;
}

export interface ExternalIdentity {
  externalId: string;
  /** From the token; null keeps what the row has (a new row starts on free). */
  plan: Plan | null;
  billingCustomerId: string | null;
  email: string | null;
  name: string | null;
}

/**
 * The user behind an identity-provider subject, created on first sight. The token is the source of
 * truth for plan and billing customer id, so later logins refresh them. The email is only stored
 * when no other user holds it (it is unique and a token must never fail on someone else's address).
 */
export async function upsertExternalUser(db: Queryable, who: ExternalIdentity): Promise<User> {
  const [user] = await db.query<User>(
    `insert into users (external_id, plan, billing_customer_id, email, name)
     values ($1, coalesce($2, 'free'), $3,
             case when $4::text is not null and not exists (select 1 from users where email = $4::text) then $4::text end, $5)
     on conflict (external_id) do update set
       plan = coalesce($2, users.plan),
       billing_customer_id = coalesce($3, users.billing_customer_id),
       name = coalesce(users.name, $5)
     returning *`,
    [who.externalId, who.plan, who.billingCustomerId, who.email, who.name],
  );
  return user!;
}
