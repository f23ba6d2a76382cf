import type { Plan } from '../auth/plans.js';
import type { Queryable } from '../store/db.js';

export interface User {
  id: string;
  email: string | null;
  name: string | null;
  plan: Plan;
  is_admin: boolean;
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
